/**
 * Aggregated API payloads of a synthetic run with N predictions per item: the predictions are simulated
 * (seeded), then aggregated the way the API does, so the browser gets what it would get for a real run of that
 * size: bins, histograms, curves, a confusion matrix and one page of items, never the N rows.
 */
import type {
  Bin,
  Calibration,
  Comparison,
  DatasetDetail,
  ItemReport,
  ItemRow,
  RunSummary,
  Server,
} from "@decision-workbench/api/shapes";
import { rate } from "../test/fixtures";

/** Mulberry32: a small seeded generator. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function wilson(k: number, n: number): [number, number] {
  if (n === 0) return [0, 1];
  const z = 1.959964;
  const p = k / n;
  const d = 1 + (z * z) / n;
  const c = (p + (z * z) / (2 * n)) / d;
  const h = (z * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n))) / d;
  return [Math.max(0, c - h), Math.min(1, c + h)];
}

/** Reliability bins of (confidence, correct) pairs. */
function bins(conf: Float64Array, ok: Uint8Array, count: number, mass: boolean): Bin[] {
  const n = conf.length;
  let edges: number[];
  if (mass) {
    const sorted = Float64Array.from(conf).sort();
    edges = [0];
    for (let i = 1; i < count; i++) edges.push(sorted[Math.floor((i * n) / count)]);
    edges.push(1);
  } else {
    edges = Array.from({ length: count + 1 }, (_, i) => i / count);
  }
  const c = new Array(count).fill(0);
  const s = new Array(count).fill(0);
  const k = new Array(count).fill(0);
  for (let i = 0; i < n; i++) {
    let b = 0;
    while (b < count - 1 && conf[i] >= edges[b + 1]) b++;
    c[b]++;
    s[b] += conf[i];
    k[b] += ok[i];
  }
  return c.map((cnt, b) => {
    const [low, high] = wilson(k[b], cnt);
    return {
      lo: edges[b],
      hi: edges[b + 1],
      count: cnt,
      confidence: cnt ? s[b] / cnt : null,
      accuracy: cnt ? k[b] / cnt : null,
      low: cnt ? low : null,
      high: cnt ? high : null,
      sparse: cnt < 10,
    };
  });
}

const ci = (x: number, w = 0.01): [number, number, number] => [x, Math.max(0, x - w), x + w];

/** A choice item with `k` options and `n` predictions, aggregated like GET /api/runs/:id/report. */
export function choiceReport(n: number, k = 15, seed = 1): ItemReport {
  const r = rng(seed);
  const options = Array.from({ length: k }, (_, i) => `genre-${String(i + 1).padStart(2, "0")}`);
  const conf = new Float64Array(n);
  const ok = new Uint8Array(n);
  const matrix = Array.from({ length: k }, () => new Array(k).fill(0));
  const perConf: number[][] = options.map(() => []);
  const perHit: number[][] = options.map(() => []);
  for (let i = 0; i < n; i++) {
    const gold = Math.floor(r() * k);
    const skill = r();
    const pred = skill < 0.72 ? gold : Math.floor(r() * k);
    // over-confident service: confidence drifts above accuracy
    const c = Math.min(0.999, Math.max(1 / k, 0.35 + 0.6 * Math.sqrt(r()) + (pred === gold ? 0.05 : -0.05)));
    conf[i] = c;
    ok[i] = pred === gold ? 1 : 0;
    matrix[gold][pred]++;
    if (i % 10 === 0) {
      for (let j = 0; j < k; j++) {
        const p = j === pred ? c : (1 - c) / (k - 1);
        perConf[j].push(p);
        perHit[j].push(j === gold ? 1 : 0);
      }
    }
  }
  const width = bins(conf, ok, 15, false);
  const hist = Array.from({ length: 20 }, (_, i) => ({ lo: i / 20, hi: (i + 1) / 20, right: 0, wrong: 0 }));
  for (let i = 0; i < n; i++) {
    const b = Math.min(19, Math.floor(conf[i] * 20));
    if (ok[i]) hist[b].right++;
    else hist[b].wrong++;
  }
  const order = Array.from(conf.keys()).sort((a, b) => conf[b] - conf[a]);
  const riskCoverage = [];
  for (let p = 0; p <= 100; p++) {
    const m = Math.max(1, Math.round((p / 100) * n));
    let wrong = 0;
    for (let j = 0; j < m; j++) wrong += 1 - ok[order[j]];
    riskCoverage.push({ threshold: conf[order[m - 1]], coverage: m / n, risk: wrong / m, escalated: n - m });
  }
  const perOption = options.map((option, j) => {
    const tp = matrix[j][j];
    const col = matrix.reduce((s, row) => s + row[j], 0);
    const row = matrix[j].reduce((s, x) => s + x, 0);
    const precision = col ? tp / col : 0;
    const recall = row ? tp / row : 0;
    return {
      option,
      bins: bins(Float64Array.from(perConf[j]), Uint8Array.from(perHit[j]), 15, false),
      precision,
      recall,
      f1: precision + recall ? (2 * precision * recall) / (precision + recall) : 0,
      support: row,
      predicted: col,
      rates: { precision: rate(tp, col), recall: rate(tp, row) },
    };
  });
  const acc = ok.reduce((s, x) => s + x, 0) / n;
  return {
    item: { name: "genre", kind: "choice", options, notStated: false },
    split: "test",
    n,
    counts: { answered: n, unknown: 0, escalated: 0, total: n, invalid: 0, unlabelled: 0 },
    resamples: { headline: 1000, secondary: 200, classwise: 200 },
    seed: 0,
    level: 0.95,
    intervals: null,
    rateInterval: "Wilson score interval, 95 % [Wilson 1927]",
    metrics: {
      accuracy: ci(acc),
      ece: ci(0.08),
      eceMass: ci(0.075),
      mce: ci(0.2),
      mceMass: ci(0.18),
      classwiseEce: ci(0.01),
      smoothEce: [0.07, null, null],
      debiasedL2: ci(0.004),
      brier: ci(0.4),
      nll: ci(1.1),
      macroF1: ci(0.7),
    },
    bins: { width, mass: bins(conf, ok, 15, true), count: 15, binning: "width", view: "top" },
    perOption,
    histogram: hist,
    confusion: { labels: options, matrix },
    riskCoverage,
    aurc: 0.12,
  };
}

/** A multi-label item with `labels` labels and `n` predictions (threshold curves on a 51-point grid). */
export function multiReport(n: number, labels = 5, seed = 2): ItemReport {
  const base = choiceReport(Math.min(n, 20_000), labels, seed);
  const r = rng(seed + 7);
  const thresholds = base.item.options.map((label) => {
    const prevalence = 0.1 + 0.5 * r();
    const curve = Array.from({ length: 51 }, (_, i) => {
      const t = i / 50;
      const recall = Math.max(0, 1 - t ** (1.5 + r()));
      const precision = Math.min(1, prevalence + (1 - prevalence) * t ** 0.8);
      const f1 = precision + recall ? (2 * precision * recall) / (precision + recall) : 0;
      return { t, precision, recall, f1 };
    });
    const best = curve.reduce((a, b) => (b.f1 > a.f1 ? b : a));
    return { label, curve, tuned: best.t, f1At05: curve[25].f1, f1Tuned: best.f1 };
  });
  return {
    ...base,
    item: { name: "properties", kind: "multi", options: base.item.options, notStated: false },
    n,
    counts: { answered: n, unknown: 0, escalated: 0, total: n, invalid: 0, unlabelled: 0 },
    metrics: { ...(base.metrics as NonNullable<ItemReport["metrics"]>), microF1: ci(0.8), macroF1: ci(0.75) },
    confusion: undefined,
    thresholds,
  };
}

/** A page of item rows (the items table never gets more than a page). */
export function itemRows(total: number, limit = 50): { total: number; rows: ItemRow[] } {
  const r = rng(3);
  const rows: ItemRow[] = Array.from({ length: limit }, (_, i) => {
    const p = 0.6 + 0.4 * r();
    return {
      exampleId: `ex-${String(i).padStart(6, "0")}`,
      split: "test",
      state: `Passage ${i}: ${"lorem ipsum dolor sit amet ".repeat(40)}`,
      gold: "genre-01",
      status: "answered",
      answer: "genre-02",
      confidence: p,
      probabilities: { "genre-02": p, "genre-01": 1 - p },
      reason: null,
      reasoning: "words that moved the answer: …",
      correct: false,
      servedBy: "bayes-2",
    };
  });
  return { total, rows };
}

const PROGRESS = (n: number) => ({
  total: n,
  done: n,
  answered: n * 2,
  unknown: 0,
  escalated: 0,
  errors: 0,
  usage: { input_tokens: n * 300, output_tokens: n * 10, reasoning_tokens: 0 },
  cost: 0,
  latency: { p50: 20, p90: 40, p99: 80 },
  examplesPerSecond: 500,
  waitingForRateLimit: null,
  budget: null,
});

/** A finished run summary. */
export function runSummary(id: string, n: number, servedBy = "bayes-2"): RunSummary {
  return {
    id,
    dataset: "bench",
    datasetHash: "0".repeat(64),
    serverId: "srv_bench",
    serverName: "Bench server",
    endpoint: "http://127.0.0.1:1/v1/decision",
    model: "workbench-latest",
    servedBy: [servedBy],
    fingerprint: "decision|bench|workbench-latest",
    splits: ["calibration", "test"],
    concurrency: 16,
    maxLen: null,
    options: {},
    limit: null,
    maxCost: null,
    maxInputTokens: null,
    status: "done",
    stopReason: null,
    error: null,
    createdAt: "2026-11-21T10:00:00Z",
    startedAt: "2026-11-21T10:00:00Z",
    finishedAt: "2026-11-21T10:03:20Z",
    progress: PROGRESS(n),
    headline: { accuracy: 0.72, ece: 0.08 },
    createdBy: null,
    name: null,
    note: null,
  };
}

/** The dataset the synthetic runs ask about. */
export function datasetDetail(n: number): DatasetDetail {
  const genre = choiceReport(200, 15).item;
  const props = multiReport(200, 5).item;
  return {
    name: "bench",
    description: "synthetic",
    source: "upload",
    hash: "0".repeat(64),
    examples: n,
    splits: { train: 0, calibration: n / 2, test: n / 2 },
    items: [genre, props],
    task: {
      name: "bench",
      description: "synthetic",
      provenance: { source: "synthetic", package: "none", licence: "CC0", labels: "simulated" },
      items: [],
    },
    labelCounts: [],
    createdBy: null,
  };
}

/** A calibration of the choice item with seven candidates. */
export function calibration(n: number): Calibration {
  const rep = choiceReport(n, 15, 5);
  const after = choiceReport(n, 15, 6).bins.width;
  const methods = ["identity", "temperature", "vector", "platt", "isotonic", "histogram", "beta"] as const;
  return {
    id: "cal_bench",
    runId: "run_bench",
    createdAt: "2026-11-21T10:05:00Z",
    file: {
      schema: "decision-workbench/calibration@1",
      created_at: "2026-11-21T10:05:00Z",
      source: {
        fingerprint: "decision|bench|workbench-latest",
        endpoint: "http://127.0.0.1:1/v1/decision",
        model: "workbench-latest",
        served_by: ["bayes-2"],
        dataset: { name: "bench", sha256: "0".repeat(64) },
        fit_split: "calibration",
        eval_split: "test",
      },
      questions: {
        genre: {
          kind: "choice",
          options: rep.item.options,
          method: "temperature",
          params: { temperature: 1.8 },
          threshold: { target_risk: 0.05, min_confidence: 0.93 },
        },
      },
    },
    candidates: {
      genre: methods.map((method, i) => ({
        method,
        heldOut: {
          nll: ci(1 - i * 0.01),
          brier: ci(0.4),
          ece: ci(0.05),
          accuracy: ci(0.72),
          eceMass: ci(0.05),
          mce: ci(0.15),
        },
        delta: null,
        improvement: method === "identity" ? null : ci(0.01),
        against: method === "identity" ? null : ("identity" as const),
        accepted: method === "temperature",
        chosen: method === "temperature",
        unknownRate: null,
        warnings: [],
      })),
    },
    before: { genre: rep.bins.width },
    after: { genre: after },
    skipped: [],
    imported: false,
    createdBy: null,
  };
}

/** A comparison of two runs of `n` predictions. */
export function comparison(n: number): Comparison {
  const a = choiceReport(n, 15, 7);
  const b = choiceReport(n, 15, 8);
  return {
    item: "genre",
    split: "test",
    runs: [
      { id: "run_bench", model: "workbench-latest", servedBy: ["bayes-2"] },
      { id: "run_bench2", model: "workbench-latest", servedBy: ["bayes-1"] },
    ],
    methods: { values: "as the report gives them", deltas: "paired bootstrap" },
    servedModelDiffers: true,
    n,
    resamples: 200,
    metrics: ["accuracy", "ece", "eceMass", "mce", "brier", "nll"].map((name) => ({
      name,
      values: [ci(0.5), ci(0.52)],
      deltas: [{ run: "run_bench2", vs: "run_bench", delta: [0.02, 0.01, 0.03] as [number, number, number] }],
    })),
    bins: [a.bins.width, b.bins.width],
    flipped: {
      total: Math.round(n * 0.1),
      compared: n,
      offset: 0,
      rows: Array.from({ length: 200 }, (_, i) => ({
        exampleId: `ex-${i}`,
        gold: "genre-01",
        answers: ["genre-01", "genre-02"],
        statuses: ["answered", "answered"],
        confidences: [0.9, 0.6],
        positions: [i, i],
      })),
    },
  };
}

/** The embedded server, for the runs list. */
export function servers(): Server[] {
  return [
    {
      id: "srv_bench",
      name: "Bench server",
      baseUrl: "http://127.0.0.1:1",
      endpoint: "http://127.0.0.1:1/v1/decision",
      models: ["workbench-latest"],
      hasApiKey: false,
      extraBody: {},
      timeout: 30,
      retries: 2,
      backoff: 1,
      deterministic: true,
      requestsPerMinute: null,
      inputTokensPerMinute: null,
      inputPricePerMillion: null,
      outputPricePerMillion: null,
      embedded: true,
      createdAt: "2026-11-21T10:00:00Z",
    },
  ];
}
