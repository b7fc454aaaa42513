// Exact multinomial resample counts, four resamples at a time packed in a Uint32Array (one byte each), generated
// fast: independent Poisson(1) counts per item from a 12-bit lookup table, then units added or removed at random
// until each resample has exactly N draws. Poissonisation: Poisson(1) counts are N' ~ Poisson(N) uniform draws;
// adding N - N' more uniform draws, or deleting N' - N of the N' draws uniformly at random, leaves N uniform draws,
// i.e. an exact multinomial(N, 1/N) resample [Efron 1979; Hanley & MacGibbon 2006 for the Poisson view]. Internal.

const CDF: number[] = [];
{
  let term = Math.exp(-1);
  let sum = term;
  for (let k = 0; k < 40; k++) {
    CDF.push(sum);
    term /= k + 1;
    sum += term;
  }
  CDF.push(1);
}

/** Poisson(1) value of each 12-bit cell (a 4 KiB table stays in L1), or 255 where a cell straddles a CDF step. */
const CELLS = 4096;
export const TABLE = new Uint8Array(CELLS);
export let TABLE_MAX = 0;
{
  let k = 0;
  for (let u = 0; u < CELLS; u++) {
    const lo = u / CELLS;
    const hi = (u + 1) / CELLS;
    while (CDF[k] <= lo) k++;
    if (CDF[k] >= hi) {
      TABLE[u] = k;
      if (k > TABLE_MAX) TABLE_MAX = k;
    } else TABLE[u] = 255;
  }
}

/** mulberry32's output for a state (the state already advanced by 0x6d2b79f5): an unsigned 32-bit integer. */
export function mix32(a: number): number {
  let t = Math.imul(a ^ (a >>> 15), 1 | a);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return (t ^ (t >>> 14)) >>> 0;
}

/** A mulberry32 stream whose state can be read and written by hot loops. */
export class Stream {
  state: number;
  constructor(seed: number) {
    this.state = Math.trunc(seed) | 0;
  }
  u32(): number {
    this.state = (this.state + 0x6d2b79f5) | 0;
    return mix32(this.state);
  }
  float(): number {
    return ((this.u32() >>> 5) * 67108864 + (this.u32() >>> 6)) / 9007199254740992;
  }
  below(n: number): number {
    return Math.floor(this.float() * n);
  }
}

/** Poisson(1) value of a straddling 12-bit cell, resolved with 32 more random bits (an unsigned 32-bit integer). */
export function refineBits(cell: number, bits: number): number {
  const u = (cell + bits / 4294967296) / CELLS;
  let k = 0;
  while (CDF[k] <= u && k < 40) k++;
  return Math.min(k, 200);
}

/** Poisson(1) value of a straddling 12-bit cell, resolved with the stream's next 32 bits. */
function refine(cell: number, rng: Stream): number {
  return refineBits(cell, rng.u32());
}

/**
 * Fills `counts` with four independent multinomial(N, 1/N) resamples, one per byte: (counts[e] >>> 8 * j) & 255 is
 * resample j's count of item e.
 */
export function drawCounts(counts: Uint32Array, rng: Stream, aux: Stream): void {
  const n = counts.length;
  let s = rng.state;
  const w = [0, 0, 0, 0];
  let max = TABLE_MAX;
  for (let e = 0; e < n; e++) {
    let packed = 0;
    for (let half = 0; half < 2; half++) {
      s = (s + 0x6d2b79f5) | 0;
      let t = Math.imul(s ^ (s >>> 15), 1 | s);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      const r = (t ^ (t >>> 14)) >>> 0;
      let a = TABLE[r & 0xfff];
      let b = TABLE[(r >>> 12) & 0xfff];
      if ((a | b) & 128) {
        // a 12-bit cell straddling a step of the CDF (7 of 4096): resolve it with more random bits
        if (a === 255) a = refine(r & 0xfff, aux);
        if (b === 255) b = refine((r >>> 12) & 0xfff, aux);
        max = Math.max(max, a, b);
      }
      packed |= (a | (b << 8)) << (16 * half);
      w[2 * half] += a;
      w[2 * half + 1] += b;
    }
    counts[e] = packed >>> 0;
  }
  rng.state = s;
  for (let j = 0; j < 4; j++) adjustCounts(counts, 8 * j, w[j], max, rng, null);
}

/**
 * Adds or removes single draws of one packed resample (shift 0, 8, 16 or 24) until it has exactly N draws; each
 * change is logged as e * 2 + (1 if added else 0) when a log is given.
 */
export function adjustCounts(
  counts: Uint32Array,
  shift: number,
  total: number,
  max: number,
  rng: Stream,
  log: number[] | null,
): void {
  const n = counts.length;
  if (total < n) rng.state = addDraws(counts, shift, n - total, rng.state, log);
  else if (total > n) rng.state = removeDraws(counts, shift, total - n, max, rng.state, log);
}

// The two loops below take the stream's state as a number and return the new state: V8 compiles a long loop while it
// runs, and code after it that needs type feedback, or that checks an object's hidden class (a Stream's, thrown away
// when a full garbage collection finds no Stream alive), made later calls bail out or compile it again.

/** Adds `missing` draws at uniformly random items (none to an item at 255); returns the stream's new state. */
function addDraws(
  counts: Uint32Array,
  shift: number,
  missing: number,
  state: number,
  log: number[] | null,
): number {
  const n = counts.length;
  const unit = 1 << shift;
  let s = state;
  for (let d = missing; d > 0; ) {
    // e = below(n): a float in [0, 1) from two draws (26 + 27 bits), times n
    s = (s + 0x6d2b79f5) | 0;
    const hi = mix32(s) >>> 5;
    s = (s + 0x6d2b79f5) | 0;
    const lo = mix32(s) >>> 6;
    const e = Math.floor(((hi * 67108864 + lo) / 9007199254740992) * n);
    if (((counts[e] >>> shift) & 255) === 255) continue;
    counts[e] += unit;
    log?.push(e * 2 + 1);
    d--;
  }
  return s;
}

/**
 * Removes `extra` draws, each from a uniformly random draw (an item picked uniformly, kept with probability count /
 * max); returns the stream's new state.
 */
function removeDraws(
  counts: Uint32Array,
  shift: number,
  extra: number,
  max: number,
  state: number,
  log: number[] | null,
): number {
  const n = counts.length;
  const unit = 1 << shift;
  let s = state;
  for (let d = extra; d > 0; ) {
    s = (s + 0x6d2b79f5) | 0;
    const hi = mix32(s) >>> 5;
    s = (s + 0x6d2b79f5) | 0;
    const lo = mix32(s) >>> 6;
    const e = Math.floor(((hi * 67108864 + lo) / 9007199254740992) * n);
    s = (s + 0x6d2b79f5) | 0;
    if (mix32(s) * (max / 4294967296) < ((counts[e] >>> shift) & 255)) {
      counts[e] -= unit;
      log?.push(e * 2);
      d--;
    }
  }
  return s;
}
