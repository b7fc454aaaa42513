/**
 * The writer's queue commits an answer as it arrives: in the call that hands it over while its allowance lasts,
 * and a stream of answers in groups, one window apart, once the allowance is spent.
 */

import { performance } from "node:perf_hooks";
import { describe, expect, it } from "vitest";
import { maxUnstored, UnstoredAnswers } from "../src/engine/job.js";
import type { ExampleResult } from "../src/storage/types.js";
import { COMMIT_BURST, GROUP_COMMIT_MAX, GroupQueue } from "../src/storage/writer.js";

/** A queue whose groups are recorded (size, time) and settled at once. */
function recorded(windowMs: number, burst?: number) {
  const groups: { size: number; at: number }[] = [];
  const queue = new GroupQueue(
    (group) => {
      groups.push({ size: group.length, at: performance.now() });
      for (const w of group) w.resolve();
    },
    windowMs,
    burst,
  );
  return { groups, queue };
}

const wire = {} as ExampleResult;

describe("the writer's queue", () => {
  it("hands each write over in the call that brings it, as long as its allowance lasts", async () => {
    // a window of a minute: the allowance does not grow back during the test
    const { groups, queue } = recorded(60_000);
    const writes: Promise<void>[] = [];
    for (let i = 0; i < COMMIT_BURST; i++) {
      writes.push(queue.push(wire));
      expect(groups.length, "handed over before push returned").toBe(i + 1);
    }
    await Promise.all(writes);
    expect(groups.map((g) => g.size)).toEqual(Array(COMMIT_BURST).fill(1));
  });

  it("never holds back a lone writer that waits for each write, below one write per window", async () => {
    const { groups, queue } = recorded(60_000, 5);
    for (let i = 0; i < 5; i++) await queue.push(wire);
    expect(groups.map((g) => g.size)).toEqual([1, 1, 1, 1, 1]);
  });

  it("once the allowance is spent, commits what arrives together a window later, at most GROUP_COMMIT_MAX at once", async () => {
    const { groups, queue } = recorded(20, 2);
    await Promise.all([queue.push(wire), queue.push(wire)]);
    const spent = performance.now();
    const stream = Array.from({ length: 300 }, () => queue.push(wire));
    // a full group goes at once, allowance or not; the rest waits for the allowance to grow back
    expect(groups.map((g) => g.size)).toEqual([1, 1, GROUP_COMMIT_MAX]);
    await Promise.all(stream);
    expect(groups.map((g) => g.size)).toEqual([1, 1, GROUP_COMMIT_MAX, 300 - GROUP_COMMIT_MAX]);
    expect(groups[3].at - spent).toBeGreaterThanOrEqual(19);
  });

  it("commits what is queued when closed, and refuses later writes", async () => {
    const { groups, queue } = recorded(60_000, 1);
    await queue.push(wire);
    const queued = queue.push(wire);
    expect(groups.length).toBe(1);
    queue.close();
    await queued;
    expect(groups.map((g) => g.size)).toEqual([1, 1]);
    await expect(queue.push(wire)).rejects.toThrow("the storage is closed: nothing more can be written");
  });

  it("lets at most two answers per slot wait for their commit, however few the slots", () => {
    expect(maxUnstored(1)).toBe(2);
    expect(maxUnstored(3)).toBe(6);
  });

  it("counts a slot's place from before it asks, so never more than the bound wait, and takes places back", async () => {
    const unstored = new UnstoredAnswers(2);
    await unstored.room();
    await unstored.room(); // two slots asking
    let third = false;
    const waiting = unstored.room().then(() => {
      third = true;
    });
    await new Promise((r) => setImmediate(r));
    expect(third).toBe(false);
    unstored.release(); // a request that failed gives its place to the waiting slot
    await waiting;
    expect(third).toBe(true);
    // the two asking slots hand over their answers: the two places stay taken until a commit settles
    let commit!: () => void;
    unstored.add(new Promise<void>((resolve) => (commit = resolve)));
    unstored.add(new Promise<void>(() => {}));
    let fourth = false;
    const next = unstored.room().then(() => {
      fourth = true;
    });
    await new Promise((r) => setImmediate(r));
    expect(fourth).toBe(false);
    commit();
    await next;
    expect(fourth).toBe(true);
  });
});
