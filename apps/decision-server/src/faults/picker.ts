/** Chooses the fault of each POST /v1/decision request from a plan, with a seeded PRNG for `rate` rules. */

import type { Fault, FaultPlan } from "./plan.js";

/** mulberry32: a small, fast, seeded 32-bit PRNG returning numbers in [0, 1). */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Returns a function from request number (1-based) to its fault. Rules are tried in order and the first
 * that applies wins: a rule applies when `on` (if given) lists the number and a draw falls under `rate` (if
 * given). Every `rate` rule draws once per request, so the sequence depends only on the seed and the count.
 */
export function faultPicker(plan: FaultPlan): (n: number) => Fault | undefined {
  const random = mulberry32(plan.seed ?? 1);
  return (n) => {
    const draws = plan.rules.map((r) => (r.rate !== undefined ? random() : 0));
    for (let i = 0; i < plan.rules.length; i++) {
      const rule = plan.rules[i];
      if (rule.on !== undefined && !rule.on.includes(n)) continue;
      if (rule.rate !== undefined && !(draws[i] < rule.rate)) continue;
      return rule.fault;
    }
    return undefined;
  };
}
