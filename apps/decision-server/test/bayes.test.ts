import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadCheckpoints } from "../src/bayes/checkpoints.js";
import { compileTarget, logScores } from "../src/bayes/compile.js";
import { extractFeatures } from "../src/bayes/features.js";
import { withLock } from "../src/bayes/lock.js";
import { addExample, emptyStats } from "../src/bayes/stats.js";
import { fitTemperature } from "../src/bayes/temperature.js";
import { mulberry32 } from "../src/faults/picker.js";

const dir = mkdtempSync(join(tmpdir(), "decision-server-bayes-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("features", () => {
  it("reads numbers, short categories, long text, ISO dates and which fields are present", () => {
    const f = extractFeatures({
      island: "Biscoe",
      mass: 4200,
      missing: null,
      note: "A long free-text note about this bird, seen near the shore at dawn.",
      date: "2012-03-04",
    });
    expect(Object.fromEntries(f.numeric)).toEqual({ mass: 4200 });
    expect(Object.fromEntries(f.categorical)).toEqual({ island: "biscoe", "date.month": "03" });
    expect(f.words.get("shore")).toBe(1);
    expect([...f.present].sort()).toEqual(["date", "island", "mass", "note"]);
  });

  it("keeps a currency amount, a quoted line and a web address as shape tokens of a text", () => {
    const f = extractFeatures("Pay $50 now\n> you wrote this\nsee https://example.com");
    expect(f.words.get("#amount")).toBe(1);
    expect(f.words.get("#quoted-line")).toBe(1);
    expect(f.words.get("#url")).toBe(1);
  });
});

describe("naive Bayes", () => {
  const stats = emptyStats(["small", "large"]);
  for (const [x, c] of [
    [1, 0],
    [2, 0],
    [3, 0],
    [10, 1],
    [11, 1],
    [12, 1],
  ] as const) {
    addExample(stats, extractFeatures(c === 0 ? { size: x, tag: "a" } : { size: x }), c);
  }
  const model = compileTarget(stats, [], { alpha: 1, varianceShare: 1e-3 });

  it("leaves an absent field out of the likelihood and lets the presence model speak for it", () => {
    const near = logScores(model, extractFeatures({ size: 2, tag: "a" }));
    expect(near[0]).toBeGreaterThan(near[1]);
    const absent = logScores(model, extractFeatures({}));
    expect(model.presence.map((p) => p.field)).toEqual(["tag"]);
    for (const c of [0, 1])
      expect(absent[c]).toBeCloseTo(model.logPrior[c] + model.presence[0].absent[c], 12);
    // Only "small" examples had a tag, so its absence speaks for "large".
    expect(absent[1]).toBeGreaterThan(absent[0]);
    const withSize = logScores(model, extractFeatures({ size: 11 }));
    expect(withSize[1] - withSize[0]).toBeGreaterThan(absent[1] - absent[0]);
  });

  it("fits back the temperature that generated held-out labels", () => {
    const random = mulberry32(11);
    const scores: Float64Array[] = [];
    const gold: number[] = [];
    for (let i = 0; i < 4000; i++) {
      const s = Float64Array.from({ length: 3 }, () => (random() - 0.5) * 12);
      const e = Array.from(s, (v) => Math.exp(v / 2.5));
      const z = e.reduce((a, b) => a + b, 0);
      let u = random() * z;
      let c = 0;
      while (u > e[c] && c < 2) u -= e[c++];
      scores.push(s);
      gold.push(c);
    }
    expect(fitTemperature(scores, gold)).toBeCloseTo(2.5, 0);
    expect(fitTemperature([], [])).toBe(1);
  });
});

describe("the checkpoint cache", () => {
  it("holds on disk exactly the checkpoints this process serves", async () => {
    const loaded = await loadCheckpoints();
    const files = readdirSync(loaded.cacheDir).filter(
      (f) => f.startsWith("checkpoints-") && f.endsWith(".json"),
    );
    const contents = files.map((f) => JSON.parse(readFileSync(join(loaded.cacheDir, f), "utf8")));
    expect(contents.some((c) => JSON.stringify(c.versions) === JSON.stringify(loaded.versions))).toBe(true);
    expect(loaded.versions.map((v) => v.version)).toEqual(["bayes-1", "bayes-2"]);
    expect(await loadCheckpoints()).toBe(loaded);
  });

  it("lets one process train while the others wait for its result", async () => {
    const file = join(dir, "result.txt");
    let trainings = 0;
    const ready = async () => {
      try {
        return readFileSync(file, "utf8");
      } catch {
        return null;
      }
    };
    const work = async () => {
      trainings++;
      await new Promise((r) => setTimeout(r, 200));
      writeFileSync(file, "trained");
      return "trained";
    };
    const results = await Promise.all([withLock(dir, ready, work), withLock(dir, ready, work)]);
    expect(results).toEqual(["trained", "trained"]);
    expect(trainings).toBe(1);
  });

  it("returns the result without working when it is there once the lock is taken", async () => {
    // the last holder finished (result written, lock removed) between a waiter's look and its taking the lock
    const other = mkdtempSync(join(tmpdir(), "decision-server-lock-"));
    writeFileSync(join(other, "result.txt"), "theirs");
    let worked = false;
    const value = await withLock(
      other,
      async () => {
        try {
          return readFileSync(join(other, "result.txt"), "utf8");
        } catch {
          return null;
        }
      },
      async () => {
        worked = true;
        return "mine";
      },
    );
    expect(value).toBe("theirs");
    expect(worked).toBe(false);
    expect(existsSync(join(other, "training.lock"))).toBe(false);
    rmSync(other, { recursive: true, force: true });
  });

  it("does not take over a lock its owner has created but not yet written", async () => {
    const other = mkdtempSync(join(tmpdir(), "decision-server-lock-"));
    writeFileSync(join(other, "training.lock"), "");
    const file = join(other, "result.txt");
    setTimeout(() => writeFileSync(file, "theirs"), 300);
    const value = await withLock(
      other,
      async () => {
        try {
          return readFileSync(file, "utf8");
        } catch {
          return null;
        }
      },
      async () => "mine",
    );
    expect(value).toBe("theirs");
    rmSync(other, { recursive: true, force: true });
  });

  it("takes over a lock left by a process that is gone", async () => {
    const other = mkdtempSync(join(tmpdir(), "decision-server-lock-"));
    writeFileSync(join(other, "training.lock"), "999999999");
    const value = await withLock(
      other,
      async () => null,
      async () => "mine",
    );
    expect(value).toBe("mine");
    rmSync(other, { recursive: true, force: true });
  });
});
