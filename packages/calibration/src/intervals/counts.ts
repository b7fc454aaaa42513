/** Checks a binomial count pair: integers with 0 <= successes <= n. */
export function checkCounts(successes: number, n: number, fn: string): void {
  if (!Number.isInteger(n) || n < 0)
    throw new RangeError(`${fn}: n must be a non-negative integer, got ${n}`);
  if (!Number.isInteger(successes) || successes < 0 || successes > n) {
    throw new RangeError(`${fn}: successes must be an integer in 0..${n}, got ${successes}`);
  }
}
