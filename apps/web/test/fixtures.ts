/** Small hand-made API payloads for the transform and component tests. */
import type {
  Bin,
  Calibration,
  DatasetSummary,
  Progress,
  Rate,
  RunCheck,
  Server,
} from "@decision-workbench/api/shapes";
import { SPARSE_BIN } from "../src/transforms/reliability";

/** A run's progress a quarter through 200 examples, with `over` in place. */
export function progress(over: Partial<Progress> = {}): Progress {
  return {
    total: 200,
    done: 50,
    answered: 40,
    unknown: 5,
    escalated: 5,
    errors: 0,
    usage: { input_tokens: 0, output_tokens: 0, reasoning_tokens: 0 },
    cost: 0,
    latency: { p50: 1, p90: 2, p99: 3 },
    examplesPerSecond: 10,
    waitingForRateLimit: null,
    budget: null,
    ...over,
  };
}

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

/** x of n with its 95 % Wilson score interval, as the API gives every rate. */
export function rate(x: number, n: number): Rate {
  if (n === 0) return { x, n, value: null, low: null, high: null };
  const z = 1.959963984540054;
  const p = x / n;
  const d = 1 + (z * z) / n;
  const c = (p + (z * z) / (2 * n)) / d;
  const h = (z * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n))) / d;
  return { x, n, value: p, low: x === 0 ? 0 : c - h, high: x === n ? 1 : c + h };
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
    requestsPerMinute: null,
    inputTokensPerMinute: null,
    inputPricePerMillion: null,
    outputPricePerMillion: null,
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
    createdBy: null,
    ...over,
  };
}

/** A calibration of dataset `dataset`: fitted on `runId`, or imported when `runId` is null. */
export function calibration(
  id: string,
  runId: string | null,
  over: { dataset?: string; servedBy?: string[]; createdAt?: string } = {},
): Calibration {
  const createdAt = over.createdAt ?? "2026-11-21T10:05:00Z";
  return {
    id,
    runId,
    createdAt,
    file: {
      schema: "decision-workbench/calibration@1",
      created_at: createdAt,
      source: {
        fingerprint: "decision|http://127.0.0.1:1/v1/decision|workbench-latest",
        endpoint: "http://127.0.0.1:1/v1/decision",
        model: "workbench-latest",
        served_by: over.servedBy ?? ["bayes-2"],
        dataset: { name: over.dataset ?? "penguins", sha256: "0".repeat(64) },
        fit_split: "calibration",
        eval_split: "test",
      },
      questions: {
        species: {
          kind: "choice",
          options: ["Adelie", "Chinstrap", "Gentoo"],
          method: "temperature",
          params: {},
        },
      },
    },
    candidates: {},
    before: {},
    after: {},
    skipped: [],
    imported: runId === null,
    createdBy: null,
  };
}

/** A check of run_a: species inside its intervals; `fail` adds a swapped model and sex's ECE above its interval. */
export function runCheck(fail: boolean): RunCheck {
  const q = (ece: number, eceInterval: [number, number], ok: boolean) => ({
    n: 90,
    ece,
    ecePlugin: ece,
    eceInterval,
    answeredError: 0.011,
    answeredErrorInterval: [0.0003, 0.06] as [number, number],
    coverage: 0.98,
    ok,
  });
  const details: RunCheck["details"] = fail
    ? [
        {
          code: "served-by-changed",
          message:
            "the run was served by [bayes-1], the file was fitted on [bayes-2]: the service swapped its weights",
        },
        {
          code: "ece-outside",
          question: "sex",
          message: "sex: calibrated ECE 0.0222 is above the file's interval [0.0000, 0.0100]",
        },
      ]
    : [];
  return {
    ok: !fail,
    runId: "run_a",
    split: "test",
    reasons: details.map((d) => d.message),
    details,
    questions: {
      species: q(0.018, [0.008, 0.038], true),
      sex: fail ? q(0.0222, [0, 0.01], false) : q(0.004, [0, 0.01], true),
    },
    skipped: fail ? ["body_mass"] : [],
    servedBy: [fail ? "bayes-1" : "bayes-2"],
  };
}
