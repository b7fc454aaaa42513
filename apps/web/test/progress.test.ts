// @vitest-environment node

import { describe, expect, it } from "vitest";
import { partialMark, progressView, refreshDue, runPhase } from "../src/transforms/progress";
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

describe("progressView once a run is not running", () => {
  it("gives no remaining time for a cancelled, stopped, failed or done run, however fast it went", () => {
    for (const status of ["cancelled", "stopped", "failed", "done"] as const) {
      const v = progressView(progress({ done: 448, total: 1530, examplesPerSecond: 12 }), status);
      expect(v.etaSeconds, status).toBeNull();
      expect(v.phase).toBe("ended");
    }
    expect(
      progressView(progress({ done: 448, total: 1530, examplesPerSecond: 12 }), "running").etaSeconds,
    ).toBeCloseTo((1530 - 448) / 12);
  });

  it("says it prepares the run's examples until the first answer, queued or running", () => {
    const none = progress({
      done: 0,
      answered: 0,
      unknown: 0,
      escalated: 0,
      total: 1530,
      examplesPerSecond: 0,
    });
    expect(progressView(none, "running").preparingText).toBe("Preparing 1,530 examples");
    expect(progressView(none, "queued").phase).toBe("preparing");
    expect(progressView(progress({ done: 0, total: 1 }), "running").preparingText).toBe(
      "Preparing 1 example",
    );
    expect(progressView(progress({ done: 1 }), "running").preparingText).toBeNull();
    // a run cancelled before any answer is not preparing anything
    expect(progressView(none, "cancelled").preparingText).toBeNull();
    expect(runPhase("cancelled", none)).toBe("ended");
  });
});

describe("partialMark", () => {
  it("marks a running or queued run's figures partial with how many examples they cover", () => {
    expect(partialMark("running", { done: 1071, total: 1530 })).toEqual({
      done: 1071,
      total: 1530,
      text: "partial: 1,071 of 1,530 examples",
      reason: "the run is still running",
    });
    expect(partialMark("queued", { done: 0, total: 342 })?.text).toBe("partial: 0 of 342 examples");
    // every example answered but the run not yet marked done: still partial (the headline is not final)
    expect(partialMark("running", { done: 342, total: 342 })?.reason).toBe("the run is still running");
  });

  it("marks cancelled, stopped and failed runs that ended early, and says why", () => {
    expect(partialMark("cancelled", { done: 448, total: 1530 })?.text).toBe("partial: 448 of 1,530 examples");
    expect(partialMark("cancelled", { done: 448, total: 1530 })?.reason).toBe("the run was cancelled");
    expect(partialMark("stopped", { done: 20, total: 40 })?.reason).toBe("the run stopped at its budget");
    expect(partialMark("failed", { done: 1, total: 2 })?.reason).toBe("the run failed");
  });

  it("leaves complete runs unmarked", () => {
    expect(partialMark("done", { done: 342, total: 342 })).toBeNull();
    expect(partialMark("cancelled", { done: 342, total: 342 })).toBeNull();
    expect(partialMark("failed", { done: 10, total: 10 })).toBeNull();
  });
});

describe("refreshDue", () => {
  it("refreshes the first time, then at most once per interval", () => {
    expect(refreshDue(null, 1_000)).toBe(true);
    expect(refreshDue(1_000, 3_999, 3_000)).toBe(false);
    expect(refreshDue(1_000, 4_000, 3_000)).toBe(true);
  });
});
