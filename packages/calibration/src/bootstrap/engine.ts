import { widthEdges } from "../binning/edges.js";
import { argsortUnit } from "../sort.js";
import { adjustCounts, mix32, refineBits, Stream, TABLE, TABLE_MAX } from "./multinomial.js";

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
export const ENGINE_METRICS = ["accuracy", "nll", "brier", "ece", "eceMass", "mce", "mceMass"] as const;
export type EngineMetric = (typeof ENGINE_METRICS)[number];
/** Replicates of the headline metrics, and of the debiased squared L2 calibration error (equal-mass, unclipped). */
export type Replicates = Record<EngineMetric, Float64Array> & { debiased: Float64Array };

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

/** The per-item arrays of a run in sorted order (and, for a further run, where each item sits in the first run's order). */
function gatherItems(
  order: Uint32Array,
  c0: Float64Array,
  y0: Uint8Array,
  l0: Float64Array,
  b0: Float64Array,
  pos0: Int32Array | null,
  conf: Float64Array,
  res: Float64Array,
  cor: Uint8Array,
  nll: Float64Array,
  brier: Float64Array,
  gather: Int32Array | null,
): void {
  const n = order.length;
  // the loop reads only typed arrays and nothing follows it (see the speed notes below)
  for (let t = 0; t < n; t++) {
    const i = order[t];
    conf[t] = c0[i];
    cor[t] = y0[i];
    res[t] = y0[i] - c0[i];
    nll[t] = l0[i];
    brier[t] = b0[i];
    if (gather && pos0) gather[t] = pos0[i];
  }
}

function prepare(run: RunItems, order: Uint32Array, pos0: Int32Array | null, bins: number): SortedRun {
  const n = order.length;
  const conf = new Float64Array(n);
  const res = new Float64Array(n);
  const cor = new Uint8Array(n);
  const nll = new Float64Array(n);
  const brier = new Float64Array(n);
  const gather = pos0 ? new Int32Array(n) : null;
  gatherItems(order, run.conf, run.correct, run.nll, run.brier, pos0, conf, res, cor, nll, brier, gather);
  const edges = widthEdges(bins);
  const widthPos = new Int32Array(bins + 1);
  for (let b = 1; b < bins; b++) widthPos[b] = upperBound(conf, edges[b]);
  widthPos[bins] = n;
  return { gather, conf, res, cor, nll, brier, widthPos };
}

/** pos[order[t]] = t. */
function inversePermutation(order: Uint32Array, pos: Int32Array): void {
  for (let t = 0; t < order.length; t++) pos[order[t]] = t;
}

// Speed notes (V8). The passes over all items (drawAndPass, pass) run long enough to be compiled while they run, on
// their first call (on-stack replacement, OSR), before the code after their loop has ever run; later calls enter that
// compiled loop again. Code after the loop that needs type feedback (a property read or write, an object or array
// literal) then made every call bail out of it at the loop's end, and run in the interpreter and baseline code until
// the function was compiled again. So these loops store everything they produce in the loop itself (at each block's
// end) and nothing follows them. Their arguments are typed arrays and numbers only: code that checks an object's
// hidden class (a PassSums, a Stream, a run's record) is thrown away when a full garbage collection finds no object
// of that class alive (between reports, say), and compiled again on the next call. Module bindings (G, TABLE) are
// copied to locals first: optimised code reads a module's bindings from the module at every use.

/** Block sums (then prefix sums) and totals of one pass, for the four packed resamples. */
class PassSums {
  /** Block sums of the four resamples in one array of 12 rows of blocks + 1 (counts, residuals, correct counts). */
  readonly sums: Float64Array;
  /** cnt[j] / res[j]: resample j's count and residual sum per block (index b + 1), then prefix sums (index b). */
  readonly cnt: Float64Array[];
  readonly res: Float64Array[];
  /** correct, NLL and Brier totals: tot[j], tot[4 + j], tot[8 + j]. */
  readonly tot = new Float64Array(12);
  /** drawAndPass: [0] and [1] the two streams' states (in and out), [2 + j] resample j's draws, [6] the largest count. */
  readonly io = new Float64Array(7);
  constructor(readonly blocks: number) {
    const stride = blocks + 1;
    this.sums = new Float64Array(12 * stride);
    this.cnt = [0, 1, 2, 3].map((j) => this.sums.subarray(j * stride, (j + 1) * stride));
    this.res = [4, 5, 6, 7].map((j) => this.sums.subarray(j * stride, (j + 1) * stride));
  }
}

/** Turns block sums (block b at index b + 1) into prefix sums (index b: everything before block b), row by row. */
function cumulate(sums: Float64Array, stride: number): void {
  for (let at = 0; at < sums.length; at += stride) {
    for (let b = at + 1; b < at + stride; b++) sums[b] += sums[b - 1];
  }
}

/**
 * Applies the draws added or removed when resample j was brought to exactly N (log entries e * 2 + added) to its
 * block sums and totals.
 */
function correct(
  sums: Float64Array,
  stride: number,
  tot: Float64Array,
  res: Float64Array,
  cor: Uint8Array,
  nll: Float64Array,
  brier: Float64Array,
  log: number[],
  j: number,
): void {
  const cnt = j * stride;
  const rs = (4 + j) * stride;
  const ys = (8 + j) * stride;
  const logG = LOG_G;
  for (let i = 0; i < log.length; i++) {
    const entry = log[i];
    const t = entry >>> 1;
    const sign = entry & 1 ? 1 : -1;
    const blk = (t >>> logG) + 1;
    sums[cnt + blk] += sign;
    sums[rs + blk] += sign * res[t];
    sums[ys + blk] += sign * cor[t];
    tot[j] += sign * cor[t];
    tot[4 + j] += sign * nll[t];
    tot[8 + j] += sign * brier[t];
  }
}

/**
 * Draws four resamples' Poisson counts and accumulates the first run's block sums (into sums, rows of `stride`) and
 * totals in the same loop (the first run's sorted order is the item order of the counts). io: the two streams' states
 * in; out, their new states, each resample's number of draws and the largest count, for the adjustment.
 */
function drawAndPass(
  counts: Uint32Array,
  res: Float64Array,
  cor: Uint8Array,
  nll: Float64Array,
  brier: Float64Array,
  sums: Float64Array,
  stride: number,
  tot: Float64Array,
  io: Float64Array,
): void {
  const n = counts.length;
  const g = G; // module bindings read once (see the notes above)
  const table = TABLE;
  let s = io[0] | 0;
  let sa = io[1] | 0;
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
  for (let start = 0, blk = 1; start < n; start += g, blk++) {
    const end = Math.min(n, start + g);
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
      let a = table[u & 0xfff];
      let b = table[(u >>> 12) & 0xfff];
      let c = table[v & 0xfff];
      let d = table[(v >>> 12) & 0xfff];
      if ((a | b | c | d) & 128) {
        // a 12-bit cell straddling a step of the CDF (7 of 4096): resolve it with the auxiliary stream's next bits
        if (a === 255) {
          sa = (sa + 0x6d2b79f5) | 0;
          a = refineBits(u & 0xfff, mix32(sa));
        }
        if (b === 255) {
          sa = (sa + 0x6d2b79f5) | 0;
          b = refineBits((u >>> 12) & 0xfff, mix32(sa));
        }
        if (c === 255) {
          sa = (sa + 0x6d2b79f5) | 0;
          c = refineBits(v & 0xfff, mix32(sa));
        }
        if (d === 255) {
          sa = (sa + 0x6d2b79f5) | 0;
          d = refineBits((v >>> 12) & 0xfff, mix32(sa));
        }
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
    sums[blk] = k0;
    sums[stride + blk] = k1;
    sums[2 * stride + blk] = k2;
    sums[3 * stride + blk] = k3;
    sums[4 * stride + blk] = r0;
    sums[5 * stride + blk] = r1;
    sums[6 * stride + blk] = r2;
    sums[7 * stride + blk] = r3;
    sums[8 * stride + blk] = cLo & 0xffff;
    sums[9 * stride + blk] = cHi & 0xffff;
    sums[10 * stride + blk] = cLo >>> 16;
    sums[11 * stride + blk] = cHi >>> 16;
    // the running results, stored at every block's end (see the notes above)
    tot[0] = c0;
    tot[1] = c1;
    tot[2] = c2;
    tot[3] = c3;
    tot[4] = l0;
    tot[5] = l1;
    tot[6] = l2;
    tot[7] = l3;
    tot[8] = b0;
    tot[9] = b1;
    tot[10] = b2;
    tot[11] = b3;
    io[0] = s;
    io[1] = sa;
    io[2] = w0;
    io[3] = w1;
    io[4] = w2;
    io[5] = w3;
    io[6] = max;
  }
}

/** Block sums and totals of a further run, reading the (final) counts through its gather map (see drawAndPass). */
function pass(
  counts: Uint32Array,
  gather: Int32Array,
  res: Float64Array,
  cor: Uint8Array,
  nll: Float64Array,
  brier: Float64Array,
  sums: Float64Array,
  stride: number,
  tot: Float64Array,
): void {
  const n = counts.length;
  const g = G;
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
  for (let start = 0, blk = 1; start < n; start += g, blk++) {
    const end = Math.min(n, start + g);
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
    sums[blk] = kLo & 0xffff;
    sums[stride + blk] = kHi & 0xffff;
    sums[2 * stride + blk] = kLo >>> 16;
    sums[3 * stride + blk] = kHi >>> 16;
    sums[4 * stride + blk] = r0;
    sums[5 * stride + blk] = r1;
    sums[6 * stride + blk] = r2;
    sums[7 * stride + blk] = r3;
    sums[8 * stride + blk] = cLo & 0xffff;
    sums[9 * stride + blk] = cHi & 0xffff;
    sums[10 * stride + blk] = cLo >>> 16;
    sums[11 * stride + blk] = cHi >>> 16;
    tot[0] = c0;
    tot[1] = c1;
    tot[2] = c2;
    tot[3] = c3;
    tot[4] = l0;
    tot[5] = l1;
    tot[6] = l2;
    tot[7] = l3;
    tot[8] = b0;
    tot[9] = b1;
    tot[10] = b2;
    tot[11] = b3;
  }
}

// Reading one resample (lane j of a pass) back: its block prefix sums are rows j (counts) and 4 + j (residual sums) of
// the pass's sums, its count of an item is byte j of the packed counts (through the run's gather map for a further
// run). Plain functions of typed arrays and numbers (see the speed notes above).

/** Resample `lane`'s count of the item at sorted position t. */
function weightAt(counts: Uint32Array, gather: Int32Array | null, lane: number, t: number): number {
  return ((gather === null ? counts[t] : counts[gather[t]]) >>> (8 * lane)) & 255;
}

/** Resampled count, residual sum and correct count over sorted positions [0, pos), into out[0], out[1], out[2]. */
function prefix(
  sums: Float64Array,
  stride: number,
  lane: number,
  counts: Uint32Array,
  gather: Int32Array | null,
  res: Float64Array,
  cor: Uint8Array,
  pos: number,
  out: Float64Array,
): void {
  const blk = pos >>> LOG_G;
  let c = sums[lane * stride + blk];
  let r = sums[(4 + lane) * stride + blk];
  let y = sums[(8 + lane) * stride + blk];
  for (let t = blk << LOG_G; t < pos; t++) {
    const w = weightAt(counts, gather, lane, t);
    c += w;
    r += w * res[t];
    y += w * cor[t];
  }
  out[0] = c;
  out[1] = r;
  out[2] = y;
}

/** Confidence of the resample's order statistic of the given rank (0-based). */
function orderStat(
  sums: Float64Array,
  stride: number,
  lane: number,
  counts: Uint32Array,
  gather: Int32Array | null,
  conf: Float64Array,
  rank: number,
): number {
  const at = lane * stride;
  let lo = 0;
  let hi = stride - 1; // last block whose start count <= rank
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if (sums[at + mid] <= rank) lo = mid;
    else hi = mid - 1;
  }
  let acc = sums[at + lo];
  let t = lo << LOG_G;
  const n = conf.length;
  for (;;) {
    const w = weightAt(counts, gather, lane, t);
    if (acc + w > rank || t === n - 1) return conf[t];
    acc += w;
    t++;
  }
}

function lerp(a: number, b: number, t: number): number {
  const diff = b - a;
  return t >= 0.5 ? b - diff * (1 - t) : a + diff * t;
}

/**
 * ECE (out[0]), MCE (out[1]) and the debiased squared L2 calibration error before clipping and the square root
 * (out[2], Kumar et al. 2019, as debiasedFromSums) of the resample over the bins that end at the given sorted positions.
 */
function binnedErrors(
  sums: Float64Array,
  stride: number,
  lane: number,
  counts: Uint32Array,
  gather: Int32Array | null,
  res: Float64Array,
  cor: Uint8Array,
  positions: Int32Array,
  bins: number,
  out: Float64Array,
): void {
  const n = res.length;
  const totalRes = sums[(5 + lane) * stride - 1];
  const totalCor = sums[(9 + lane) * stride - 1];
  const cur = new Float64Array(3);
  let prevC = 0;
  let prevR = 0;
  let prevY = 0;
  let ece = 0;
  let mce = 0;
  let l2 = 0;
  for (let b = 1; b <= bins; b++) {
    if (b < bins) prefix(sums, stride, lane, counts, gather, res, cor, positions[b], cur);
    else {
      cur[0] = n;
      cur[1] = totalRes;
      cur[2] = totalCor;
    }
    const dc = cur[0] - prevC;
    const signed = cur[1] - prevR;
    const dr = Math.abs(signed);
    ece += dr;
    if (dc > 0 && dr / dc > mce) mce = dr / dc;
    if (dc >= 2) {
      const acc = (cur[2] - prevY) / dc;
      const gap = signed / dc;
      l2 += (dc / n) * (gap * gap - (acc * (1 - acc)) / (dc - 1));
    }
    prevC = cur[0];
    prevR = cur[1];
    prevY = cur[2];
  }
  out[0] = ece / n;
  out[1] = mce;
  out[2] = l2;
}

/** The sorted positions where the resample's equal-mass bins end (numpy's percentile edges of the resample). */
function massPositions(
  sums: Float64Array,
  stride: number,
  lane: number,
  counts: Uint32Array,
  gather: Int32Array | null,
  conf: Float64Array,
  bins: number,
  out: Int32Array,
): void {
  const n = conf.length;
  const step = 1 / bins;
  for (let b = 1; b < bins; b++) {
    const q = (b * step * 100) / 100;
    const vi = (n - 1) * q;
    let edge: number;
    if (vi >= n - 1) edge = orderStat(sums, stride, lane, counts, gather, conf, n - 1);
    else {
      const lo = Math.floor(vi);
      edge = lerp(
        orderStat(sums, stride, lane, counts, gather, conf, lo),
        orderStat(sums, stride, lane, counts, gather, conf, lo + 1),
        vi - lo,
      );
    }
    out[b] = upperBound(conf, edge);
  }
}

/**
 * Bootstrap replicates of accuracy, NLL, Brier, ECE and MCE (equal-width and equal-mass) and the debiased L2 error
 * (equal-mass) for one or more runs on the same items; every run sees the same resamples, so differences between runs
 * are paired. onCounts sees each group of four resamples' final packed counts, indexed by position in the first
 * run's confidence order (`order`, argsortUnit of its confidences, computed when not given).
 */
export function bootstrapRuns(
  runs: RunItems[],
  bins: number,
  resamples: number,
  seed: number,
  onCounts?: (counts: Uint32Array, firstResample: number) => void,
  order?: Uint32Array,
): Replicates[] {
  const n = runs[0].conf.length;
  const order0 = order ?? argsortUnit(runs[0].conf);
  const pos0 = new Int32Array(n);
  inversePermutation(order0, pos0);
  const sorted = runs.map((run, r) =>
    prepare(run, r === 0 ? order0 : argsortUnit(run.conf), r === 0 ? null : pos0, bins),
  );
  const out: Replicates[] = runs.map(() => {
    const rep = { debiased: new Float64Array(resamples) } as Replicates;
    for (const m of ENGINE_METRICS) rep[m] = new Float64Array(resamples);
    return rep;
  });
  const counts = new Uint32Array(n);
  const rng = new Stream(seed);
  const aux = new Stream(rng.u32() ^ 0x5bd1e995);
  const blocks = Math.ceil(n / G);
  const sums = sorted.map(() => new PassSums(blocks));
  const massPos = new Int32Array(bins + 1);
  const width = new Float64Array(3);
  const mass = new Float64Array(3);
  const log: number[] = [];
  const first = sorted[0];
  const io = sums[0].io;
  for (let r = 0; r < resamples; r += 4) {
    io[0] = rng.state;
    io[1] = aux.state;
    drawAndPass(
      counts,
      first.res,
      first.cor,
      first.nll,
      first.brier,
      sums[0].sums,
      blocks + 1,
      sums[0].tot,
      io,
    );
    rng.state = io[0];
    aux.state = io[1];
    for (let j = 0; j < 4; j++) {
      log.length = 0;
      adjustCounts(counts, 8 * j, io[2 + j], io[6], rng, log);
      correct(sums[0].sums, blocks + 1, sums[0].tot, first.res, first.cor, first.nll, first.brier, log, j);
    }
    cumulate(sums[0].sums, blocks + 1);
    onCounts?.(counts, r);
    for (let s = 1; s < sorted.length; s++) {
      const run = sorted[s];
      pass(counts, run.gather!, run.res, run.cor, run.nll, run.brier, sums[s].sums, blocks + 1, sums[s].tot);
      cumulate(sums[s].sums, blocks + 1);
    }
    for (let s = 0; s < sorted.length; s++) {
      const run = sorted[s];
      const pass = sums[s].sums;
      for (let lane = 0; lane < 4 && r + lane < resamples; lane++) {
        const { gather, res, cor, conf } = run;
        binnedErrors(pass, blocks + 1, lane, counts, gather, res, cor, run.widthPos, bins, width);
        massPositions(pass, blocks + 1, lane, counts, gather, conf, bins, massPos);
        binnedErrors(pass, blocks + 1, lane, counts, gather, res, cor, massPos, bins, mass);
        const rep = out[s];
        const tot = sums[s].tot;
        rep.accuracy[r + lane] = tot[lane] / n;
        rep.nll[r + lane] = tot[4 + lane] / n;
        rep.brier[r + lane] = tot[8 + lane] / n;
        rep.ece[r + lane] = width[0];
        rep.mce[r + lane] = width[1];
        rep.eceMass[r + lane] = mass[0];
        rep.mceMass[r + lane] = mass[1];
        rep.debiased[r + lane] = mass[2];
      }
    }
  }
  return out;
}
