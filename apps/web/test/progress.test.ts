// @vitest-environment node

import { describe, expect, it } from "vitest";
import { progressView } from "../src/transforms/progress";
import { progress } from "./fixtures";

describe("progressView", () => {
  it("gives percent done, the time left at the current pace and the decision shares", () => {
    const v = progressView(progress({}));
    expect(v.percent).toBeCloseTo(25);
    expect(v.doneText).toBe("50 / 200");
    expect(v.etaSeconds).toBeCloseTo(15);
    expect(v.answeredShare).toBeCloseTo(0.8);
    expect(v.unknownShare).toBeCloseTo(0.1);
  });

  it("says how long requests wait for the server's rate limit, in whole seconds rounded up", () => {
    expect(progressView(progress({})).rateLimitText).toBeNull();
    expect(progressView(progress({ waitingForRateLimit: 0.3 })).rateLimitText).toBe(
      "waiting for rate limit, 1 s",
    );
    expect(progressView(progress({ waitingForRateLimit: 12.1 })).rateLimitText).toBe(
      "waiting for rate limit, 13 s",
    );
  });

  it("knows no remaining time before the first answers and none when finished", () => {
    expect(progressView(progress({ examplesPerSecond: 0 })).etaSeconds).toBeNull();
    expect(progressView(progress({ done: 200 })).etaSeconds).toBe(0);
    expect(progressView(progress({ total: 0, done: 0, answered: 0, unknown: 0, escalated: 0 })).percent).toBe(
      0,
    );
  });
});
