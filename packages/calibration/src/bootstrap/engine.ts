import { widthEdges } from "../binning/edges.js";
import { argsortUnit } from "../sort.js";
import { adjustCounts, refine, Stream, TABLE, TABLE_MAX } from "./multinomial.js";

// The fast bootstrap behind reports and comparisons. Per-item quantities are computed once; every resample is a
// vector of multinomial counts over items, and each run's metrics are weighted sums over its items in confidence
// order: block prefix sums give the equal-width bins directly and the equal-mass bins after locating the
// resample's quantiles. Four resamples share one pass over the data (their counts packed in one Uint32). Internal.

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

/** Block sums (then prefix sums) and totals of one pass, for the four packed resamples. */
class PassSums {
  /** cnt[j] / res[j]: resample j's count and residual sum per block (index b + 1), then prefix sums (index b). */
  readonly cnt: Float64Array[];
  readonly res: Float64Array[];
  /** correct, NLL and Brier totals: tot[j], tot[4 + j], tot[8 + j]. */
  readonly tot = new Float64Array(12);
  constructor(readonly blocks: number) {
    this.cnt = [0, 1, 2, 3].map(() => new Float64Array(blocks + 1));
    this.res = [0, 1, 2, 3].map(() => new Float64Array(blocks + 1));
  }
  setBlock(
    blk: number,
    k0: number,
    k1: number,
    k2: number,
    k3: number,
    r0: number,
    r1: number,
    r2: number,
    r3: number,
  ) {
    const [c0, c1, c2, c3] = this.cnt;
    const [s0, s1, s2, s3] = this.res;
    c0[blk] = k0;
    c1[blk] = k1;
    c2[blk] = k2;
    c3[blk] = k3;
    s0[blk] = r0;
    s1[blk] = r1;
    s2[blk] = r2;
    s3[blk] = r3;
  }
  /** Turns block sums (block b at index b + 1) into prefix sums (index b: everything before block b). */
  cumulate(): void {
    for (let j = 0; j < 4; j++) {
      const c = this.cnt[j];
      const r = this.res[j];
      for (let b = 1; b <= this.blocks; b++) {
        c[b] += c[b - 1];
        r[b] += r[b - 1];
      }
    }
  }
  /** Applies the draws added or removed when resample j was brought to exactly N (log entries e * 2 + added). */
  correct(run: SortedRun, log: number[], j: number): void {
    const cnt = this.cnt[j];
    const res = this.res[j];
    for (const entry of log) {
      const t = entry >>> 1;
      const sign = entry & 1 ? 1 : -1;
      const blk = (t >>> LOG_G) + 1;
      cnt[blk] += sign;
      res[blk] += sign * run.res[t];
      this.tot[j] += sign * run.cor[t];
      this.tot[4 + j] += sign * run.nll[t];
      this.tot[8 + j] += sign * run.brier[t];
    }
  }
}

/**
 * Draws four resamples' Poisson counts and accumulates the first run's block sums in the same loop (the first run's
 * sorted order is the item order of the counts). Returns the four totals and the largest count, for the adjustment.
 */
function drawAndPass(counts: Uint32Array, run: SortedRun, out: PassSums, rng: Stream, aux: Stream): number[] {
  const n = counts.length;
  const { res, cor, nll, brier } = run;
  let s = rng.state;
  let max = TABLE_MAX;
  let c0 = 0;
  let c1 = 0;
  let c2 = 0;
  let c3 = 0;
  let l0 = 0;
  let l1 = 0;
  let l2 = 0;
  let l3 = 0;
  let b0 = 0;
  let b1 = 0;
  let b2 = 0;
  let b3 = 0;
  let w0 = 0;
  let w1 = 0;
  let w2 = 0;
  let w3 = 0;
  let blk = 0;
  for (let start = 0; start < n; start += G) {
    const end = Math.min(n, start + G);
    // counts and correct counts of the block, two resamples per 32-bit word (16-bit halves never overflow: G * 255)
    let kLo = 0;
    let kHi = 0;
    let cLo = 0;
    let cHi = 0;
    let r0 = 0;
    let r1 = 0;
    let r2 = 0;
    let r3 = 0;
    for (let t = start; t < end; t++) {
      s = (s + 0x6d2b79f5) | 0;
      let z = Math.imul(s ^ (s >>> 15), 1 | s);
      z = (z + Math.imul(z ^ (z >>> 7), 61 | z)) ^ z;
      const u = (z ^ (z >>> 14)) >>> 0;
      s = (s + 0x6d2b79f5) | 0;
      z = Math.imul(s ^ (s >>> 15), 1 | s);
      z = (z + Math.imul(z ^ (z >>> 7), 61 | z)) ^ z;
      const v = (z ^ (z >>> 14)) >>> 0;
      let a = TABLE[u & 0xfff];
      let b = TABLE[(u >>> 12) & 0xfff];
      let c = TABLE[v & 0xfff];
      let d = TABLE[(v >>> 12) & 0xfff];
      if ((a | b | c | d) & 128) {
        // a 12-bit cell straddling a step of the CDF (7 of 4096): resolve it with more random bits
        if (a === 255) a = refine(u & 0xfff, aux);
        if (b === 255) b = refine((u >>> 12) & 0xfff, aux);
        if (c === 255) c = refine(v & 0xfff, aux);
        if (d === 255) d = refine((v >>> 12) & 0xfff, aux);
        max = Math.max(max, a, b, c, d);
      }
      const w = a | (b << 8) | (c << 16) | (d << 24);
      counts[t] = w;
      const lo = w & 0x00ff00ff;
      const hi = (w >>> 8) & 0x00ff00ff;
      const m = -cor[t];
      kLo += lo;
      kHi += hi;
      cLo += lo & m;
      cHi += hi & m;
      const x = res[t];
      r0 += a * x;
      r1 += b * x;
      r2 += c * x;
      r3 += d * x;
      const l = nll[t];
      l0 += a * l;
      l1 += b * l;
      l2 += c * l;
      l3 += d * l;
      const q = brier[t];
      b0 += a * q;
      b1 += b * q;
      b2 += c * q;
      b3 += d * q;
    }
    const k0 = kLo & 0xffff;
    const k1 = kHi & 0xffff;
    const k2 = kLo >>> 16;
    const k3 = kHi >>> 16;
    c0 += cLo & 0xffff;
    c1 += cHi & 0xffff;
    c2 += cLo >>> 16;
    c3 += cHi >>> 16;
    w0 += k0;
    w1 += k1;
    w2 += k2;
    w3 += k3;
    out.setBlock(++blk, k0, k1, k2, k3, r0, r1, r2, r3);
  }
  rng.state = s;
  out.tot.set([c0, c1, c2, c3, l0, l1, l2, l3, b0, b1, b2, b3]);
  return [w0, w1, w2, w3, max];
}

/** Block sums and totals of a further run, reading the (final) counts through its gather map. */
function pass(counts: Uint32Array, run: SortedRun, out: PassSums): void {
  const n = counts.length;
  const { res, cor, nll, brier } = run;
  const gather = run.gather!;
  let c0 = 0;
  let c1 = 0;
  let c2 = 0;
  let c3 = 0;
  let l0 = 0;
  let l1 = 0;
  let l2 = 0;
  let l3 = 0;
  let b0 = 0;
  let b1 = 0;
  let b2 = 0;
  let b3 = 0;
  let blk = 0;
  for (let start = 0; start < n; start += G) {
    const end = Math.min(n, start + G);
    let kLo = 0;
    let kHi = 0;
    let cLo = 0;
    let cHi = 0;
    let r0 = 0;
    let r1 = 0;
    let r2 = 0;
    let r3 = 0;
    for (let t = start; t < end; t++) {
      const w = counts[gather[t]];
      const a = w & 255;
      const b = (w >>> 8) & 255;
      const c = (w >>> 16) & 255;
      const d = w >>> 24;
      const lo = w & 0x00ff00ff;
      const hi = (w >>> 8) & 0x00ff00ff;
      const m = -cor[t];
      kLo += lo;
      kHi += hi;
      cLo += lo & m;
      cHi += hi & m;
      const x = res[t];
      r0 += a * x;
      r1 += b * x;
      r2 += c * x;
      r3 += d * x;
      const l = nll[t];
      l0 += a * l;
      l1 += b * l;
      l2 += c * l;
      l3 += d * l;
      const q = brier[t];
      b0 += a * q;
      b1 += b * q;
      b2 += c * q;
      b3 += d * q;
    }
    c0 += cLo & 0xffff;
    c1 += cHi & 0xffff;
    c2 += cLo >>> 16;
    c3 += cHi >>> 16;
    out.setBlock(++blk, kLo & 0xffff, kHi & 0xffff, kLo >>> 16, kHi >>> 16, r0, r1, r2, r3);
  }
  out.tot.set([c0, c1, c2, c3, l0, l1, l2, l3, b0, b1, b2, b3]);
}

/** Reads one resample's sums out of a pass: prefix sums at any position and order statistics. */
class Lane {
  private cnt!: Float64Array;
  private res!: Float64Array;
  private shift = 0;
  constructor(
    private readonly counts: Uint32Array,
    private readonly run: SortedRun,
  ) {}
  select(sums: PassSums, lane: number): void {
    this.cnt = sums.cnt[lane];
    this.res = sums.res[lane];
    this.shift = 8 * lane;
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
  onCounts?: (counts: Uint32Array, firstResample: number) => void,
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
  const counts = new Uint32Array(n);
  const rng = new Stream(seed);
  const aux = new Stream(rng.u32() ^ 0x5bd1e995);
  const blocks = Math.ceil(n / G);
  const sums = sorted.map(() => new PassSums(blocks));
  const lanes = sorted.map((run) => new Lane(counts, run));
  const massPos = new Int32Array(bins + 1);
  const log: number[] = [];
  for (let r = 0; r < resamples; r += 4) {
    const w = drawAndPass(counts, sorted[0], sums[0], rng, aux);
    for (let j = 0; j < 4; j++) {
      log.length = 0;
      adjustCounts(counts, 8 * j, w[j], w[4], rng, log);
      sums[0].correct(sorted[0], log, j);
    }
    sums[0].cumulate();
    onCounts?.(counts, r);
    for (let s = 1; s < sorted.length; s++) {
      pass(counts, sorted[s], sums[s]);
      sums[s].cumulate();
    }
    for (let s = 0; s < sorted.length; s++) {
      const run = sorted[s];
      for (let lane = 0; lane < 4 && r + lane < resamples; lane++) {
        const l = lanes[s];
        l.select(sums[s], lane);
        const totalRes = sums[s].res[lane][blocks];
        const width = binnedErrors(l, run.widthPos, bins, n, totalRes);
        massPositions(l, run, bins, n, massPos);
        const mass = binnedErrors(l, massPos, bins, n, totalRes);
        const rep = out[s];
        const tot = sums[s].tot;
        rep.accuracy[r + lane] = tot[lane] / n;
        rep.nll[r + lane] = tot[4 + lane] / n;
        rep.brier[r + lane] = tot[8 + lane] / n;
        rep.ece[r + lane] = width.ece;
        rep.mce[r + lane] = width.mce;
        rep.eceMass[r + lane] = mass.ece;
      }
    }
  }
  return out;
}
