import { describe, expect, it } from "vitest";
import { mulberry32 } from "../src/bootstrap/random.js";
import { fastExp, fastLog } from "../src/fast-math.js";

// The kernels against Math.exp / Math.log: relative error and distance in units in the last place over millions of
// random arguments (seeded) and over the edges of their tables; special values exactly as Math gives them.

const bits = new BigInt64Array(1);
const view = new Float64Array(bits.buffer);
function ulps(a: number, b: number): number {
  view[0] = a;
  const x = bits[0];
  view[0] = b;
  const d = x - bits[0];
  return Number(d < 0n ? -d : d);
}

interface Worst {
  rel: number;
  ulps: number;
  at: number;
}

function compare(f: (x: number) => number, g: (x: number) => number, xs: Iterable<number>): Worst {
  const worst = { rel: 0, ulps: 0, at: Number.NaN };
  for (const x of xs) {
    const a = f(x);
    const b = g(x);
    if (Object.is(a, b)) continue;
    const rel = Math.abs(a - b) / Math.abs(b);
    // NaN (a result where Math has none, or the reverse) must count as the worst case
    if (!(rel <= worst.rel)) {
      worst.rel = rel;
      worst.at = x;
    }
    const u = ulps(a, b);
    if (!(u <= worst.ulps)) worst.ulps = u;
  }
  return worst;
}

function* draws(n: number, seed: number, draw: (u: number, v: number) => number): Generator<number> {
  const rng = mulberry32(seed);
  for (let i = 0; i < n; i++) yield draw(rng.float(), rng.float());
}

const LN2 = Math.LN2;

describe("fastLog", () => {
  it("is within one ulp of Math.log over millions of arguments", () => {
    const ranges: [string, Iterable<number>][] = [
      // log-uniform over [1e-300, 1]: the range the calibrators use
      ["[1e-300, 1]", draws(1_000_000, 1, (u) => Math.exp(-690.8 * u))],
      ["(0, 1) uniform", draws(500_000, 2, (u) => u)],
      ["near 1", draws(500_000, 3, (u) => 1 + (u - 0.5) / 64)],
      ["every exponent", draws(500_000, 4, (u, v) => (1 + u) * 2 ** Math.floor(v * 2046 - 1022))],
    ];
    for (const [name, xs] of ranges) {
      const w = compare(fastLog, Math.log, xs);
      expect(w.rel, `${name} at ${w.at}`).toBeLessThanOrEqual(3e-16);
      expect(w.ulps, name).toBeLessThanOrEqual(1);
    }
  });

  it("is within one ulp at the edges of its 128 intervals, in many binades", () => {
    // the reduced argument m in [0.709, 1.418) is cut where the high word steps by 2^13; edges and their neighbours
    const xs: number[] = [];
    const hw = new Int32Array(2);
    const f = new Float64Array(hw.buffer);
    for (const e of [-1022, -500, -21, -1, 0, 1, 30, 1023]) {
      for (let i = 0; i <= 128; i++) {
        hw[1] = 0x3fe6b000 + i * 0x2000;
        hw[0] = 0;
        const edge = f[0];
        for (const x of [edge, edge * (1 + 2 ** -52), edge * (1 - 2 ** -53)]) {
          const scaled = x * 2 ** e;
          if (Number.isFinite(scaled) && scaled >= 2 ** -1022) xs.push(scaled);
        }
      }
    }
    const w = compare(fastLog, Math.log, xs);
    expect(w.rel, `at ${w.at}`).toBeLessThanOrEqual(3e-16);
    expect(w.ulps).toBeLessThanOrEqual(1);
  });

  it("gives exactly Math's value for zero, subnormals, negatives, infinities, NaN and exact cases", () => {
    const specials = [
      0,
      -0,
      -1,
      -1e-300,
      Number.NaN,
      Number.POSITIVE_INFINITY,
      Number.NEGATIVE_INFINITY,
      Number.MIN_VALUE,
      1e-310,
      2 ** -1022 - 2 ** -1074,
      2 ** -1022,
      Number.MAX_VALUE,
      1,
      2,
      0.5,
    ];
    for (const x of specials) expect(Object.is(fastLog(x), Math.log(x)), `log(${x})`).toBe(true);
    expect(fastLog(1)).toBe(0);
  });
});

describe("fastExp", () => {
  it("is within one ulp of Math.exp over millions of arguments", () => {
    const ranges: [string, Iterable<number>][] = [
      // [-745, 0]: every exponent the calibrators take (results down to the subnormals)
      ["[-745, 0]", draws(1_000_000, 5, (u) => -745 * u)],
      ["[-707, 709]", draws(500_000, 6, (u) => -707 + 1416 * u)],
      ["small |x|", draws(300_000, 7, (u, v) => (u - 0.5) * 2 ** (-60 * v))],
    ];
    for (const [name, xs] of ranges) {
      const w = compare(fastExp, Math.exp, xs);
      expect(w.rel, `${name} at ${w.at}`).toBeLessThanOrEqual(3e-16);
      expect(w.ulps, name).toBeLessThanOrEqual(1);
    }
  });

  it("is within one ulp where the reduction changes table entry (halfway between multiples of ln2 / 128)", () => {
    const xs: number[] = [];
    for (let n = -707 * 185; n <= 709 * 185; n += 37) {
      const x = ((n + 0.5) * LN2) / 128;
      if (x > -707 && x < 709) xs.push(x, x * (1 + 2 ** -52), x * (1 - 2 ** -52));
    }
    const w = compare(fastExp, Math.exp, xs);
    expect(w.rel, `at ${w.at}`).toBeLessThanOrEqual(3e-16);
    expect(w.ulps).toBeLessThanOrEqual(1);
  });

  it("gives exactly Math's value for zeros, infinities, NaN, underflow, subnormal results and overflow", () => {
    const specials = [
      0,
      -0,
      Number.NaN,
      Number.POSITIVE_INFINITY,
      Number.NEGATIVE_INFINITY,
      -745.2,
      -745.1332191019412,
      -745,
      -720,
      -708.5,
      -707,
      709,
      709.78,
      710,
      1e-300,
      -1e-300,
    ];
    for (const x of specials) expect(Object.is(fastExp(x), Math.exp(x)), `exp(${x})`).toBe(true);
    expect(fastExp(0)).toBe(1);
    expect(fastExp(-746)).toBe(0);
  });
});
