import { describe, expect, it } from "vitest";
import { UnstoredAnswers } from "../src/engine/job.js";

/** A commit the test settles by hand. */
function commit() {
  let resolve!: () => void;
  let reject!: (e: Error) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

const turn = () => new Promise((r) => setImmediate(r));

describe("the bound on answers waiting for their commit", () => {
  it("holds slots at the bound, wakes one per settled commit (failed ones too), and drains", async () => {
    const unstored = new UnstoredAnswers(3);
    const commits = Array.from({ length: 3 }, commit);
    for (const c of commits) unstored.add(c.promise);
    let woken = 0;
    const slots = [unstored.room().then(() => woken++), unstored.room().then(() => woken++)];
    await turn();
    expect(woken).toBe(0);
    commits[0].resolve();
    await turn();
    expect(woken).toBe(1);
    // the woken slot hands over another answer: the bound is reached again, the other slot still waits
    const fourth = commit();
    unstored.add(fourth.promise);
    await turn();
    expect(woken).toBe(1);
    commits[1].reject(new Error("the storage is closed"));
    await Promise.all(slots);
    expect(woken).toBe(2);
    let drained = false;
    const draining = unstored.drained().then(() => {
      drained = true;
    });
    commits[2].resolve();
    await turn();
    expect(drained).toBe(false);
    fourth.resolve();
    await draining;
    expect(drained).toBe(true);
    await unstored.room(); // room at once when nothing waits
  });
});
