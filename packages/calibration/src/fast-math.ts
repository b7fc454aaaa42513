// Scalar exp and log in plain JavaScript, within one unit in the last place of Math.exp / Math.log (tested over
// millions of arguments) and cheaper in V8's optimised code: Math.exp / Math.log are calls into C there, which save
// every live double around the call; these inline. Alone in a loop, exp takes about 0.65 and log about 0.9 of Math's
// time on this project's VM; in loops that keep other doubles live the gap is larger. Internal.
//
// exp(x): x = n ln2 / 128 + r (n rounded to nearest, |r| <= ln2 / 256), exp(x) = 2^(n >> 7) * 2^((n & 127) / 128) *
// exp(r), the table value as a hi + lo pair, exp(r) - 1 by its degree-5 Taylor polynomial (truncation < 6e-19).
// log(x): x = 2^k m with m in [0.709, 1.418), cut into 128 intervals by the high word's bits; c the interval's middle
// (21 significant bits, so m - c is exact), u = (m - c) * (1 / c), |u| <= 2^-8, log(x) = k ln2 + ln(c) + log1p(u),
// log1p(u) - u by its degree-7 Taylor polynomial (truncation < 2e-18 |u|). The large terms are added exactly (the hi
// parts lie on a 2^-42 grid, then a Fast2Sum with u) and the small ones after.
// Arguments outside the plain range (zero, subnormals, negatives, infinities, NaN; exp results that would be
// subnormal or overflow) go to Math.exp / Math.log, so those cases are exactly Math's. Tables: fast-math-tables.ts,
// written by scripts/make_fast_math_tables.py.
import * as tables from "./fast-math-tables.js";

// Module-level copies: V8's optimised code embeds a module's own constants, but reads an imported binding through its
// cell (with a check that it is initialised) at every use, which costs more than the arithmetic here.
const EXP_INV_STEP = tables.EXP_INV_STEP;
const EXP_STEP_HI = tables.EXP_STEP_HI;
const EXP_STEP_LO = tables.EXP_STEP_LO;
const EXP_TABLE = tables.EXP_TABLE;
const LN2_HI = tables.LN2_HI;
const LN2_LO = tables.LN2_LO;
const LOG_OFFSET = tables.LOG_OFFSET;
const LOG_TABLE = tables.LOG_TABLE;

const F64 = new Float64Array(1);
const I32 = new Int32Array(F64.buffer);
const HI = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1 ? 1 : 0; // index of the high word
const SHIFTER = 6755399441055744; // 1.5 * 2^52: adding it rounds to an integer (ties to even)
const EXP_MIN = -707; // below: results near or in the subnormal range, left to Math.exp
const EXP_MAX = 709; // above: near overflow, left to Math.exp

// Table indices below are masked to the table's size: a no-op for the arguments that reach them, and an index that
// can never fall outside the table (a typed-array read there would give undefined and slow the code down).
/** 2^e for e = -1022..1023 (index e + 1022). */
const POW2 = new Float64Array(2048);
for (let e = -1022, v = 2 ** -1022; e <= 1023; e++, v *= 2) POW2[e + 1022] = v;
/** 2^-k for k = -1022..1024 (index k + 1022; the last two are subnormal, exact). */
const INV_POW2 = new Float64Array(2048);
for (let k = -1022; k <= 1024; k++) INV_POW2[k + 1022] = 2 ** -k;

/** e^x, within about one ulp of Math.exp(x) (identical outside [-707, 709]). */
export function fastExp(x: number): number {
  if (!(x > EXP_MIN && x < EXP_MAX)) return Math.exp(x);
  const n = x * EXP_INV_STEP + SHIFTER - SHIFTER;
  const r = x - n * EXP_STEP_HI - n * EXP_STEP_LO;
  const ni = n | 0;
  const j = (ni & 127) << 1;
  const r2 = r * r;
  const p = r + r2 * (0.5 + r * (1 / 6) + r2 * (1 / 24 + r * (1 / 120)));
  const t = EXP_TABLE[j];
  return (t + (EXP_TABLE[j + 1] + t * p)) * POW2[((ni >> 7) + 1022) & 2047];
}

/** Natural logarithm, within about one ulp of Math.log(x) (identical for zero, subnormal, negative, infinite, NaN). */
export function fastLog(x: number): number {
  F64[0] = x;
  const hx = I32[HI];
  // positive normal finite numbers only: high word in [0x00100000, 0x7ff00000)
  if (hx < 0x00100000 || hx >= 0x7ff00000) return Math.log(x);
  const tmp = hx - LOG_OFFSET;
  const k = tmp >> 20; // x = 2^k m, m in [0.709, 1.418)
  const t = (tmp >> 11) & 508; // 4 x m's interval: its row of the table
  const m = x * INV_POW2[(k + 1022) & 2047]; // exact
  const u = (m - LOG_TABLE[t]) * LOG_TABLE[t + 1]; // m / c - 1 (m - c exact), |u| < 0.004
  const hi = k * LN2_HI + LOG_TABLE[t + 2]; // exact
  const s = hi + u;
  const err = hi - s + u; // Fast2Sum: |hi| >= |u| whenever hi != 0
  const u2 = u * u;
  // log1p(u) - u to degree 7 (the next term is below 2e-18 |u|), Estrin's scheme
  const poly = u2 * (-0.5 + u * (1 / 3) + u2 * (-0.25 + u * 0.2) + u2 * u2 * (-1 / 6 + u * (1 / 7)));
  return s + (err + (k * LN2_LO + LOG_TABLE[t + 3] + poly));
}
