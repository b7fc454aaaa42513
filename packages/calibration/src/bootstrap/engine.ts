import { widthEdges } from "../binning/edges.js";
import { argsortUnit } from "../sort.js";
import { adjustCounts, refine, Stream, TABLE, TABLE_MAX } from "./multinomial.js";

// The fast bootstrap behind reports and comparisons. Per-item quantities are computed once; every resample is a
// vector of multinomial counts over items, and each run's metrics are weighted sums over its items in confidence
// order: block prefix sums give the equal-width bins directly and the equal-mass bins after locating the
// resample's quantiles. Two resamples share one pass over the data (their counts packed in one Uint16). Internal.

/** Per-item quantities of one run on the shared items. */
export interface RunItems {
  conf: Float64Array;
  correct: Uint8Array;
  nll: Float64Array;
  brier: Float64Array;
}

/** The metrics the engine resamples. */
export const ENGINE_METRICS = ["accuracy", "nll", "brier", "ece", "eceMass", "mce"] as const;
export type EngineMetric = (typeof ENGINE_METRICS)[number];
export type Replicates = Record<EngineMetric, Float64Array>;

const G = 64; // block length
const LOG_G = 6;

interface SortedRun {
  gather: Int32Array | null;
  conf: Float64Array;
  res: Float64Array;
  cor: Uint8Array;
  nll: Float64Array;
  brier: Float64Array;
  widthPos: Int32Array;
}

function upperBound(sorted: Float64Array, v: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid] <= v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function prepare(run: RunItems, order: Uint32Array, pos0: Int32Array | null, bins: number): SortedRun {
  const n = order.length;
  const conf = new Float64Array(n);
  const res = new Float64Array(n);
  const cor = new Uint8Array(n);
  const nll = new Float64Array(n);
  const brier = new Float64Array(n);
  const gather = pos0 ? new Int32Array(n) : null;
  for (let t = 0; t < n; t++) {
    const i = order[t];
    conf[t] = run.conf[i];
    cor[t] = run.correct[i];
    res[t] = run.correct[i] - run.conf[i];
    nll[t] = run.nll[i];
    brier[t] = run.brier[i];
    if (gather && pos0) gather[t] = pos0[i];
  }
  const edges = widthEdges(bins);
  const widthPos = new Int32Array(bins + 1);
  for (let b = 1; b < bins; b++) widthPos[b] = upperBound(conf, edges[b]);
  widthPos[bins] = n;
  return { gather, conf, res, cor, nll, brier, widthPos };
}

/** Block sums (then prefix sums) and totals of one pass, for both packed resamples. */
class PassSums {
  readonly cnt0: Float64Array;
  readonly cnt1: Float64Array;
  readonly res0: Float64Array;
  readonly res1: Float64Array;
  readonly tot = new Float64Array(6); // correct0, correct1, nll0, nll1, brier0, brier1
  constructor(readonly blocks: number) {
    this.cnt0 = new Float64Array(blocks + 1);
    this.cnt1 = new Float64Array(blocks + 1);
    this.res0 = new Float64Array(blocks + 1);
    this.res1 = new Float64Array(blocks + 1);
  }
  /** Turns block sums (block b at index b + 1) into prefix sums (index b: everything before block b). */
  cumulate(): void {
    for (let b = 1; b <= this.blocks; b++) {
      this.cnt0[b] += this.cnt0[b - 1];
      this.cnt1[b] += this.cnt1[b - 1];
      this.res0[b] += this.res0[b - 1];
      this.res1[b] += this.res1[b - 1];
    }
  }
  /** Applies the draws added or removed when a resample was brought to exactly N (log entries e * 2 + added). */
  correct(run: SortedRun, log: number[], lane: 0 | 1): void {
    const cnt = lane === 0 ? this.cnt0 : this.cnt1;
    const res = lane === 0 ? this.res0 : this.res1;
    for (const entry of log) {
      const t = entry >>> 1;
      const sign = entry & 1 ? 1 : -1;
      const blk = (t >>> LOG_G) + 1;
      cnt[blk] += sign;
      res[blk] += sign * run.res[t];
      this.tot[lane] += sign * run.cor[t];
      this.tot[2 + lane] += sign * run.nll[t];
      this.tot[4 + lane] += sign * run.brier[t];
    }
  }
}

/**
 * Draws two resamples' Poisson counts and accumulates the first run's block sums in the same loop (the first run's
 * sorted order is the item order of the counts). Returns the two totals and the largest count, for the adjustment.
 */
function drawAndPass(
  counts: Uint16Array,
  run: SortedRun,
  out: PassSums,
  rng: Stream,
  aux: Stream,
): [number, number, number] {
  const n = counts.length;
  const { res, cor, nll, brier } = run;
  let s = rng.state;
  let max = TABLE_MAX;
  let c0 = 0;
  let c1 = 0;
  let l0 = 0;
  let l1 = 0;
  let b0 = 0;
  let b1 = 0;
  let w0 = 0;
  let w1 = 0;
  let blk = 0;
  for (let start = 0; start < n; start += G) {
    const end = Math.min(n, start + G);
    let bk0 = 0;
    let bk1 = 0;
    let br0 = 0;
    let br1 = 0;
    for (let t = start; t < end; t++) {
      s = (s + 0x6d2b79f5) | 0;
      let z = Math.imul(s ^ (s >>> 15), 1 | s);
      z = (z + Math.imul(z ^ (z >>> 7), 61 | z)) ^ z;
      const r = (z ^ (z >>> 14)) >>> 0;
      let a = TABLE[r & 0xfff];
      let b = TABLE[(r >>> 12) & 0xfff];
      if ((a | b) & 128) {
        if (a === 255) a = refine(r & 0xfff, aux);
        if (b === 255) b = refine((r >>> 12) & 0xfff, aux);
        max = Math.max(max, a, b);
      }
      counts[t] = a | (b << 8);
      bk0 += a;
      bk1 += b;
      const x = res[t];
      br0 += a * x;
      br1 += b * x;
      const l = nll[t];
      l0 += a * l;
      l1 += b * l;
      const q = brier[t];
      b0 += a * q;
      b1 += b * q;
      const c = cor[t];
      c0 += a * c;
      c1 += b * c;
    }
    w0 += bk0;
    w1 += bk1;
    blk++;
    out.cnt0[blk] = bk0;
    out.cnt1[blk] = bk1;
    out.res0[blk] = br0;
    out.res1[blk] = br1;
  }
  rng.state = s;
  const tot = out.tot;
  tot[0] = c0;
  tot[1] = c1;
  tot[2] = l0;
  tot[3] = l1;
  tot[4] = b0;
  tot[5] = b1;
  return [w0, w1, max];
}

/** Block sums and totals of a further run, reading the (final) counts through its gather map. */
function pass(counts: Uint16Array, run: SortedRun, out: PassSums): void {
  const n = counts.length;
  const { res, cor, nll, brier } = run;
  const gather = run.gather!;
  let c0 = 0;
  let c1 = 0;
  let l0 = 0;
  let l1 = 0;
  let b0 = 0;
  let b1 = 0;
  let blk = 0;
  for (let start = 0; start < n; start += G) {
    const end = Math.min(n, start + G);
    let bk0 = 0;
    let bk1 = 0;
    let br0 = 0;
    let br1 = 0;
    for (let t = start; t < end; t++) {
      const v = counts[gather[t]];
      const w0 = v & 255;
      const w1 = v >>> 8;
      bk0 += w0;
      bk1 += w1;
      const x = res[t];
      br0 += w0 * x;
      br1 += w1 * x;
      const l = nll[t];
      l0 += w0 * l;
      l1 += w1 * l;
      const q = brier[t];
      b0 += w0 * q;
      b1 += w1 * q;
      const c = cor[t];
      c0 += w0 * c;
      c1 += w1 * c;
    }
    blk++;
    out.cnt0[blk] = bk0;
    out.cnt1[blk] = bk1;
    out.res0[blk] = br0;
    out.res1[blk] = br1;
  }
  const tot = out.tot;
  tot[0] = c0;
  tot[1] = c1;
  tot[2] = l0;
  tot[3] = l1;
  tot[4] = b0;
  tot[5] = b1;
}

/** Reads one resample's sums out of a pass: prefix sums at any position and order statistics. */
class Lane {
  private cnt!: Float64Array;
  private res!: Float64Array;
  private shift = 0;
  constructor(
    private readonly counts: Uint16Array,
    private readonly run: SortedRun,
  ) {}
  select(sums: PassSums, lane: 0 | 1): void {
    this.cnt = lane === 0 ? sums.cnt0 : sums.cnt1;
    this.res = lane === 0 ? sums.res0 : sums.res1;
    this.shift = lane === 0 ? 0 : 8;
  }
  private weight(t: number): number {
    const g = this.run.gather;
    return ((g === null ? this.counts[t] : this.counts[g[t]]) >>> this.shift) & 255;
  }
  /** Resampled count and residual sum over sorted positions [0, pos). */
  prefix(pos: number, out: Float64Array): void {
    const blk = pos >>> LOG_G;
    let c = this.cnt[blk];
    let r = this.res[blk];
    const res = this.run.res;
    for (let t = blk << LOG_G; t < pos; t++) {
      const w = this.weight(t);
      c += w;
      r += w * res[t];
    }
    out[0] = c;
    out[1] = r;
  }
  /** Confidence of the resample's order statistic of the given rank (0-based). */
  orderStat(rank: number): number {
    const cnt = this.cnt;
    let lo = 0;
    let hi = cnt.length - 1; // last block whose start count <= rank
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (cnt[mid] <= rank) lo = mid;
      else hi = mid - 1;
    }
    let acc = cnt[lo];
    let t = lo << LOG_G;
    const n = this.run.conf.length;
    for (;;) {
      const w = this.weight(t);
      if (acc + w > rank || t === n - 1) return this.run.conf[t];
      acc += w;
      t++;
    }
  }
}

function lerp(a: number, b: number, t: number): number {
  const diff = b - a;
  return t >= 0.5 ? b - diff * (1 - t) : a + diff * t;
}

function binnedErrors(lane: Lane, positions: ArrayLike<number>, bins: number, n: number, totalRes: number) {
  const cur = new Float64Array(2);
  let prevC = 0;
  let prevR = 0;
  let ece = 0;
  let mce = 0;
  for (let b = 1; b <= bins; b++) {
    if (b < bins) lane.prefix(positions[b], cur);
    else {
      cur[0] = n;
      cur[1] = totalRes;
    }
    const dc = cur[0] - prevC;
    const dr = Math.abs(cur[1] - prevR);
    ece += dr;
    if (dc > 0 && dr / dc > mce) mce = dr / dc;
    prevC = cur[0];
    prevR = cur[1];
  }
  return { ece: ece / n, mce };
}

function massPositions(lane: Lane, run: SortedRun, bins: number, n: number, out: Int32Array): void {
  const step = 1 / bins;
  for (let b = 1; b < bins; b++) {
    const q = (b * step * 100) / 100;
    const vi = (n - 1) * q;
    let edge: number;
    if (vi >= n - 1) edge = lane.orderStat(n - 1);
    else {
      const lo = Math.floor(vi);
      edge = lerp(lane.orderStat(lo), lane.orderStat(lo + 1), vi - lo);
    }
    out[b] = upperBound(run.conf, edge);
  }
}

/**
 * Bootstrap replicates of accuracy, NLL, Brier, ECE (equal-width and equal-mass) and MCE for one or more runs on
 * the same items; every run sees the same resamples, so differences between runs are paired.
 */
export function bootstrapRuns(
  runs: RunItems[],
  bins: number,
  resamples: number,
  seed: number,
  onCounts?: (counts: Uint16Array, firstResample: number) => void,
): Replicates[] {
  const n = runs[0].conf.length;
  const order0 = argsortUnit(runs[0].conf);
  const pos0 = new Int32Array(n);
  for (let t = 0; t < n; t++) pos0[order0[t]] = t;
  const sorted = runs.map((run, r) =>
    prepare(run, r === 0 ? order0 : argsortUnit(run.conf), r === 0 ? null : pos0, bins),
  );
  const out: Replicates[] = runs.map(() => {
    const rep = {} as Replicates;
    for (const m of ENGINE_METRICS) rep[m] = new Float64Array(resamples);
    return rep;
  });
  const counts = new Uint16Array(n);
  const rng = new Stream(seed);
  const aux = new Stream(rng.u32() ^ 0x5bd1e995);
  const blocks = Math.ceil(n / G);
  const sums = sorted.map(() => new PassSums(blocks));
  const lanes = sorted.map((run) => new Lane(counts, run));
  const massPos = new Int32Array(bins + 1);
  const log0: number[] = [];
  const log1: number[] = [];
  for (let r = 0; r < resamples; r += 2) {
    const [w0, w1, max] = drawAndPass(counts, sorted[0], sums[0], rng, aux);
    log0.length = 0;
    log1.length = 0;
    adjustCounts(counts, 0, w0, max, rng, log0);
    adjustCounts(counts, 8, w1, max, rng, log1);
    sums[0].correct(sorted[0], log0, 0);
    sums[0].correct(sorted[0], log1, 1);
    sums[0].cumulate();
    onCounts?.(counts, r);
    for (let s = 1; s < sorted.length; s++) {
      pass(counts, sorted[s], sums[s]);
      sums[s].cumulate();
    }
    for (let s = 0; s < sorted.length; s++) {
      const run = sorted[s];
      for (let lane = 0; lane < 2 && r + lane < resamples; lane++) {
        const l = lanes[s];
        l.select(sums[s], lane as 0 | 1);
        const totalRes = lane === 0 ? sums[s].res0[blocks] : sums[s].res1[blocks];
        const width = binnedErrors(l, run.widthPos, bins, n, totalRes);
        massPositions(l, run, bins, n, massPos);
        const mass = binnedErrors(l, massPos, bins, n, totalRes);
        const rep = out[s];
        const tot = sums[s].tot;
        rep.accuracy[r + lane] = tot[lane] / n;
        rep.nll[r + lane] = tot[2 + lane] / n;
        rep.brier[r + lane] = tot[4 + lane] / n;
        rep.ece[r + lane] = width.ece;
        rep.mce[r + lane] = width.mce;
        rep.eceMass[r + lane] = mass.ece;
      }
    }
  }
  return out;
}
