/** Small hand-made API payloads for the transform and component tests. */
import type { Bin, DatasetSummary, Server } from "../src/api/types";
import { SPARSE_BIN } from "../src/transforms/reliability";

/** A bin from its edges, count and accuracy/confidence (interval ±0.1 clipped to [0, 1]; sparse as the API flags it). */
export function bin(
  lo: number,
  hi: number,
  count: number,
  confidence: number | null,
  accuracy: number | null,
): Bin {
  return {
    lo,
    hi,
    count,
    confidence,
    accuracy,
    low: accuracy === null ? null : Math.max(0, accuracy - 0.1),
    high: accuracy === null ? null : Math.min(1, accuracy + 0.1),
    sparse: count < SPARSE_BIN,
  };
}

/** A registered server. */
export function server(over: Partial<Server> = {}): Server {
  return {
    id: "srv_a",
    name: "Production",
    baseUrl: "https://decide.example.com",
    endpoint: "https://decide.example.com/v1/decision",
    models: ["m-1", "m-2"],
    hasApiKey: false,
    extraBody: {},
    timeout: 30,
    retries: 2,
    backoff: 0.5,
    deterministic: false,
    embedded: false,
    createdAt: "2026-11-21T10:00:00Z",
    ...over,
  };
}

/** A dataset summary. */
export function dataset(name: string, over: Partial<DatasetSummary> = {}): DatasetSummary {
  return {
    name,
    description: `${name} description`,
    source: "bundled",
    hash: "abc",
    examples: 300,
    splits: { train: 100, calibration: 100, test: 100 },
    items: [{ name: "q", kind: "choice", options: ["a", "b"], notStated: false }],
    ...over,
  };
}
