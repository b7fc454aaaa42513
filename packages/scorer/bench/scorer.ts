/**
 * The scorer the benchmark measures: the built package (dist/, what users run: run `pnpm build` first), or
 * the TypeScript sources through tsx with BENCH_SRC=1 (tsx keeps function names with a helper call on every
 * closure created, which adds its own cost per request).
 */
type ScorerModule = typeof import("../src/index.js");

const path = process.env.BENCH_SRC ? "../src/index.js" : "../dist/index.js";
let loaded: ScorerModule;
try {
  loaded = (await import(path)) as ScorerModule;
} catch (error) {
  throw new Error(
    `bench: cannot load the scorer from ${path} (${(error as Error).message}); build it first with \`pnpm build\` in packages/scorer, or set BENCH_SRC=1 to run the sources`,
  );
}

/** DecisionScorer from dist/ or src/. */
export const { DecisionScorer } = loaded;
