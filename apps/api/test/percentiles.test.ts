import { describe, expect, it } from "vitest";
import { LatencyLog, percentiles } from "../src/engine/percentiles.js";

describe("latency percentiles of a live run", () => {
  it("are the nearest-rank p50, p90 and p99 of every time so far, asked between arrivals", () => {
    let seed = 7;
    const random = () => {
      seed = (seed * 48271) % 2147483647;
      return seed / 2147483647;
    };
    const stored = Array.from({ length: 300 }, () => Math.round(random() * 5000) / 10);
    const log = new LatencyLog(stored);
    const all = [...stored];
    const exact = () => percentiles(Float64Array.from(all).sort());
    expect(log.percentiles()).toEqual(exact());
    for (const batch of [1, 0, 17, 250, 3, 1000]) {
      for (let i = 0; i < batch; i++) {
        // a heavy tail, ties and values below every stored one
        const ms =
          i % 10 === 0 ? 2000 + random() * 8000 : i % 7 === 0 ? 0.5 : Math.round(random() * 3000) / 10;
        log.add(ms);
        all.push(ms);
      }
      expect(log.percentiles()).toEqual(exact());
    }
    expect(exact().p99).toBeGreaterThan(exact().p50);
    expect(new LatencyLog().percentiles()).toEqual({ p50: 0, p90: 0, p99: 0 });
  });
});
