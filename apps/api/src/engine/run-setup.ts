/**
 * What working on a stored run needs, checked again each time work starts (a start, a resume, a worker's chunk):
 * its server, its examples (the dataset unchanged since the run started), its server's lane and its decider.
 */

import type { Item } from "@decision-workbench/datasets";
import type { SecretBox } from "../secrets/box.js";
import { deciderFor, limitsOf } from "../servers/connect.js";
import type { OutboundPolicy } from "../servers/outbound.js";
import type { ServerRow, StoredRun, WorkbenchStorage } from "../storage/types.js";
import type { RateLane, RateLanes } from "./rate-lane.js";
import { datasetDrift, type Outline, outlineExamples } from "./selection.js";

/** Where a run's work gets its server, secrets, address policy and lanes. */
export interface SetupContext {
  storage: WorkbenchStorage;
  secrets: SecretBox;
  outbound: OutboundPolicy;
  lanes: RateLanes;
}

/** A run ready to work on: its examples as an outline (each page of them is read when it is asked). */
export interface RunSetup {
  server: ServerRow;
  items: Item[];
  outline: Outline;
  lane: RateLane;
  decider: ReturnType<typeof deciderFor>;
}

/**
 * The run's setup, or why it cannot go on (its server or dataset was deleted, the dataset changed, the server's
 * address is no longer allowed). `outline`: the run's outline when the caller has just read it from the dataset as
 * it is now; else it is read here.
 */
export async function setUpRun(
  ctx: SetupContext,
  run: StoredRun,
  outline?: Outline,
): Promise<RunSetup | { error: string }> {
  const server = await ctx.storage.getServer(run.serverId);
  if (!server)
    return { error: `the run's server (${run.serverName}) was deleted; start a new run on another server` };
  const read = outline ?? (await outlineExamples(ctx.storage, run.dataset, run.splits, run.limit));
  const drift = datasetDrift(run.dataset, run.datasetHash, read?.hash);
  // a dataset that is gone (no outline) always drifts
  if (drift || !read) return { error: drift as string };
  const lane = ctx.lanes.lane(server.id, limitsOf(server));
  try {
    const decider = deciderFor(server, ctx.secrets, run.model, ctx.outbound, {
      options: run.options,
      maxLen: run.maxLen,
      lane,
    });
    return { server, items: read.items, outline: read, lane, decider };
  } catch (err) {
    return { error: (err as Error).message };
  }
}
