/**
 * Replay: re-checks a run's stored decisions. A non-deterministic server: each decision is recomputed from
 * its recorded output (no request). A deterministic server: each is asked again and compared, which is how
 * a weight swap behind the same model name is caught.
 */

import type { Item } from "@decision-workbench/datasets";
import { ServiceError, type State } from "@decision-workbench/scorer";
import { ApiError } from "../errors.js";
import type { SecretBox } from "../secrets/box.js";
import { deciderFor } from "../servers/connect.js";
import type { OutboundPolicy } from "../servers/outbound.js";
import type { ReplayResult } from "../shapes/runs.js";
import type { PredictionRow, ServerRow, StoredRun, WorkbenchStorage } from "../storage/types.js";
import { decisionOf } from "./record.js";

/** Differing decisions listed in full. */
const REPLAY_LISTED = 200;

/** Replays every stored decision of a run against its server's current settings. */
export async function replayRun(
  storage: WorkbenchStorage,
  box: SecretBox,
  run: StoredRun,
  server: ServerRow,
  outbound: OutboundPolicy,
): Promise<ReplayResult> {
  const task = await storage.getTask(run.dataset);
  if (!task)
    throw new ApiError(
      409,
      "dataset_deleted",
      `the run's dataset ${JSON.stringify(run.dataset)} was deleted`,
    );
  const items = new Map<string, Item>(task.items.map((i) => [i.name, i]));
  const decider = deciderFor(server, box, run.model, outbound, {
    options: run.options,
    maxLen: run.maxLen,
  });
  const result: ReplayResult = {
    checked: 0,
    differing: 0,
    called: decider.deterministic,
    byField: {},
    examples: [],
  };
  let failure: ServiceError | null = null;
  /** Replays the decisions of whole examples (each example's rows, in item order, as one batch). */
  const replayExamples = async (rows: PredictionRow[]): Promise<void> => {
    const groups: PredictionRow[][] = [];
    for (const row of rows) {
      const last = groups[groups.length - 1];
      if (last && last[0].exampleId === row.exampleId) last.push(row);
      else groups.push([row]);
    }
    const states: Map<string, State> = decider.deterministic
      ? await storage.getWireStates(run.dataset, [...new Set(rows.map((r) => r.exampleId))])
      : new Map();
    const reports: { row: PredictionRow; differences: { field: string }[] }[][] = new Array(groups.length);
    let next = 0;
    const worker = async () => {
      while (failure === null && next < groups.length) {
        const index = next++;
        const group = groups[index];
        const known = group.filter((row) => items.has(row.item));
        const out = group
          .filter((row) => !items.has(row.item))
          .map((row) => ({
            row,
            differences: [
              { field: "item", detail: `item ${row.item} is no longer in the task` } as { field: string },
            ],
          }));
        try {
          if (known.length > 0) {
            const replayed = await decider.replayAll(
              known.map(decisionOf),
              states.get(known[0].exampleId) ?? "",
              known.map((row) => items.get(row.item) as Item),
            );
            for (const [i, row] of known.entries()) out.push({ row, differences: replayed[i].differences });
          }
          reports[index] = out;
        } catch (err) {
          if (err instanceof ServiceError) {
            failure = err;
            return;
          }
          throw err;
        }
      }
    };
    const workers = decider.deterministic ? Math.max(1, Math.min(run.concurrency, groups.length)) : 1;
    await Promise.all(Array.from({ length: workers }, worker));
    if (failure !== null) throw new ApiError(502, "service_error", (failure as ServiceError).message);
    for (const r of reports.flat()) {
      result.checked++;
      if (r.differences.length === 0) continue;
      result.differing++;
      for (const d of r.differences) result.byField[d.field] = (result.byField[d.field] ?? 0) + 1;
      if (result.examples.length < REPLAY_LISTED) {
        result.examples.push({ exampleId: r.row.exampleId, item: r.row.item, differences: r.differences });
      }
    }
  };
  // a page of stored decisions at a time, so a large run is never held whole; an example cut by the end of a
  // page waits for the rest of its rows
  let carried: PredictionRow[] = [];
  for await (const page of storage.predictionPages(run.id)) {
    const rows = carried.concat(page);
    const lastExample = rows[rows.length - 1].exampleId;
    let cut = rows.length;
    while (cut > 0 && rows[cut - 1].exampleId === lastExample) cut--;
    carried = rows.slice(cut);
    await replayExamples(rows.slice(0, cut));
  }
  if (carried.length > 0) await replayExamples(carried);
  return result;
}
