/**
 * Replay: re-checks a run's stored decisions. A non-deterministic server: each decision is recomputed from
 * its recorded output (no request). A deterministic server: each is asked again and compared, which is how
 * a weight swap behind the same model name is caught.
 */

import type { Item, State } from "@decision-workbench/datasets";
import { ServiceError } from "@decision-workbench/scorer";
import { ApiError } from "../errors.js";
import type { SecretBox } from "../secrets/box.js";
import { deciderFor } from "../servers/connect.js";
import type { PredictionRow, ServerRow, StoredRun, WorkbenchStorage } from "../storage/types.js";
import { decisionOf } from "./record.js";
import type { ReplayResult } from "./types.js";

/** Differing decisions listed in full. */
export const REPLAY_LISTED = 200;

/** Replays every stored decision of a run against its server's current settings. */
export async function replayRun(
  storage: WorkbenchStorage,
  box: SecretBox,
  run: StoredRun,
  server: ServerRow,
): Promise<ReplayResult> {
  const task = await storage.getTask(run.dataset);
  if (!task)
    throw new ApiError(
      409,
      "dataset_deleted",
      `the run's dataset ${JSON.stringify(run.dataset)} was deleted`,
    );
  const items = new Map<string, Item>(task.items.map((i) => [i.name, i]));
  const rows = await storage.listPredictions(run.id);
  const decider = deciderFor(server, box, run.model, { options: run.options, maxLen: run.maxLen });
  const states: Map<string, State> = decider.deterministic
    ? await storage.getStates(run.dataset, [...new Set(rows.map((r) => r.exampleId))])
    : new Map();
  const result: ReplayResult = {
    checked: 0,
    differing: 0,
    called: decider.deterministic,
    byField: {},
    examples: [],
  };
  const reports: { row: PredictionRow; differences: { field: string }[] }[] = new Array(rows.length);
  let next = 0;
  let failure: ServiceError | null = null;
  const worker = async () => {
    while (failure === null && next < rows.length) {
      const index = next++;
      const row = rows[index];
      const item = items.get(row.item);
      if (!item) {
        reports[index] = {
          row,
          differences: [
            { field: "item", detail: `item ${row.item} is no longer in the task` } as { field: string },
          ],
        };
        continue;
      }
      try {
        const report = await decider.replay(decisionOf(row), states.get(row.exampleId) ?? "", item);
        reports[index] = { row, differences: report.differences };
      } catch (err) {
        if (err instanceof ServiceError) {
          failure = err;
          return;
        }
        throw err;
      }
    }
  };
  const workers = decider.deterministic ? Math.max(1, Math.min(run.concurrency, rows.length)) : 1;
  await Promise.all(Array.from({ length: workers }, worker));
  if (failure !== null) throw new ApiError(502, "service_error", (failure as ServiceError).message);
  for (const r of reports) {
    if (!r) continue;
    result.checked++;
    if (r.differences.length === 0) continue;
    result.differing++;
    for (const d of r.differences) result.byField[d.field] = (result.byField[d.field] ?? 0) + 1;
    if (result.examples.length < REPLAY_LISTED) {
      result.examples.push({ exampleId: r.row.exampleId, item: r.row.item, differences: r.differences });
    }
  }
  return result;
}
