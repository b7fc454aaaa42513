/** A seeded stream of random numbers. */
export interface Random {
  /** Next unsigned 32-bit integer. */
  u32(): number;
  /** Next float in [0, 1) with 53 random bits. */
  float(): number;
  /** Next integer in [0, n), uniform. */
  below(n: number): number;
}

/** Seeded PRNG mulberry32 [Ettinger 2017]: a 32-bit state, one add and two multiplies per draw. */
export function mulberry32(seed: number): Random {
  if (!Number.isFinite(seed)) throw new RangeError(`mulberry32: seed must be a finite number, got ${seed}`);
  let a = Math.trunc(seed) | 0;
  const u32 = (): number => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return (t ^ (t >>> 14)) >>> 0;
  };
  const float = (): number => ((u32() >>> 5) * 67108864 + (u32() >>> 6)) / 9007199254740992;
  return { u32, float, below: (n: number) => Math.floor(float() * n) };
}
