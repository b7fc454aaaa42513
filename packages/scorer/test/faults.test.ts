import type { Fault } from "@decision-workbench/decision-server";
import { describe, expect, it } from "vitest";
import type { Item } from "../src/index.js";
import { DecisionScorer, decisionDecider, ServiceError } from "../src/index.js";
import { recordingSleep, referenceServer } from "./helpers/server.js";

const item: Item = {
  name: "team",
  kind: "choice",
  question: "Which team should handle it?",
  options: ["billing", "shipping"],
};

/** A fresh server whose first `times` requests get `fault`, and a scorer that records its waits. */
async function faulty(
  fault: Fault,
  times = 1,
  options: { retries?: number; timeout?: number; backoff?: number } = {},
) {
  const server = await referenceServer({
    faults: { rules: [{ on: Array.from({ length: times }, (_, i) => i + 1), fault }] },
    checkpoints: false,
  });
  const { waits, sleep } = recordingSleep();
  const scorer = new DecisionScorer(server.url, "lexical", undefined, { sleep, ...options });
  return { server, scorer, waits };
}

describe("retried failures: network errors, timeouts, resets, incomplete reads, 408, 409, 429, 5xx", () => {
  const retried: [string, Fault, RegExp][] = [
    ["408", { kind: "status", status: 408 }, /HTTP 408/],
    ["409", { kind: "status", status: 409 }, /HTTP 409/],
    ["429", { kind: "status", status: 429 }, /HTTP 429/],
    ["500", { kind: "status", status: 500 }, /HTTP 500/],
    ["503", { kind: "status", status: 503, body: { detail: "warming up" } }, /HTTP 503 warming up/],
    ["529", { kind: "status", status: 529 }, /HTTP 529/],
    ["a reset connection", { kind: "reset" }, /connection reset|incomplete read/],
    ["a truncated body", { kind: "truncate" }, /incomplete read/],
  ];
  for (const [what, fault, cause] of retried) {
    it(`retries ${what} with backoff * 2^k and answers once it passes`, async () => {
      const { server, scorer, waits } = await faulty(fault, 2);
      const [out] = await scorer.score("parcel lost", [item]);
      expect(out.escalate).toBeUndefined();
      expect(server.requests.length).toBe(3);
      expect(waits).toEqual([1, 2]);
    });

    it(`escalates ${what} after retries + 1 attempts, with the cause`, async () => {
      const { server, scorer, waits } = await faulty(fault, 4, { retries: 3, backoff: 0.5 });
      const [out] = await scorer.score("parcel lost", [item]);
      expect(server.requests.length).toBe(4);
      expect(waits).toEqual([0.5, 1, 2]);
      expect(out.escalate).toMatch(/^the decision service did not answer after 4 attempts: /);
      expect(out.escalate).toMatch(cause);
      expect(out.logits).toEqual([0, 0]);
    });
  }

  it("retries a timeout and escalates with it", async () => {
    const { server, scorer, waits } = await faulty({ kind: "delay", ms: 1500 }, 2, {
      timeout: 0.2,
      retries: 1,
    });
    const [out] = await scorer.score("parcel lost", [item]);
    expect(server.requests.length).toBe(2);
    expect(waits).toEqual([1]);
    expect(out.escalate).toMatch(
      /^the decision service did not answer after 2 attempts: timed out after 0.2 s/,
    );
  });

  it("escalates a refused connection after its attempts, never throwing", async () => {
    const { sleep, waits } = recordingSleep();
    const server = await referenceServer();
    const url = server.url;
    await server.close();
    const decider = decisionDecider(url, "lexical", undefined, { sleep });
    const decision = await decider.decide("x", item);
    expect(decision.status).toBe("escalated");
    if (decision.status === "escalated") {
      expect(decision.reason).toBe(
        "the decision service did not answer after 3 attempts: connection refused",
      );
    }
    expect(waits).toEqual([1, 2]);
  });

  it("does not cache a failed request: the next ask tries again", async () => {
    const { server, scorer } = await faulty({ kind: "status", status: 503 }, 3);
    const [first] = await scorer.score("parcel lost", [item]);
    expect(first.escalate).toBeDefined();
    const [second] = await scorer.score("parcel lost", [item]);
    expect(second.escalate).toBeUndefined();
    expect(server.requests.length).toBe(4);
  });
});

describe("refused requests: 400, 413, 422 escalate at once", () => {
  const refused: [string, Fault, string][] = [
    [
      "422 with a detail",
      { kind: "status", status: 422, body: { detail: "max_think must be a non-negative integer" } },
      "HTTP 422 max_think must be a non-negative integer",
    ],
    [
      "413",
      { kind: "status", status: 413, body: { detail: "request body too large" } },
      "HTTP 413 request body too large",
    ],
    [
      "400 from a gateway",
      { kind: "gateway", status: 400, raw: "prompt is too long", provider: "Acme" },
      "HTTP 400 Provider returned error (Acme: prompt is too long)",
    ],
    [
      "400 hosted detail.message",
      {
        kind: "status",
        status: 400,
        body: { detail: { message: "tokens exceeded", error_type: "tokens_exceeded" } },
      },
      "HTTP 400 tokens exceeded",
    ],
  ];
  for (const [what, fault, text] of refused) {
    it(`escalates ${what} with the service's error text`, async () => {
      const { server, scorer, waits } = await faulty(fault, 1);
      const [out] = await scorer.score("parcel lost", [item]);
      expect(server.requests.length).toBe(1);
      expect(waits).toEqual([]);
      expect(out.escalate).toBe(`the decision service refused the request: ${text}`);
    });
  }
});

describe("errors: 401, 403, 404 and other 4xx raise ServiceError", () => {
  for (const status of [401, 403, 404, 405, 410, 418]) {
    it(`raises for HTTP ${status} without retrying`, async () => {
      const { server, scorer } = await faulty({ kind: "status", status }, 1);
      const error = await scorer.score("parcel lost", [item]).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ServiceError);
      expect((error as ServiceError).status).toBe(status);
      expect((error as Error).message).toContain(`${server.url}/v1/decision`);
      expect(server.requests.length).toBe(1);
    });
  }
});

describe("replies that break the contract escalate as invalid output, never answered alone", () => {
  const broken: [string, Fault, RegExp][] = [
    ["a bare NaN token", { kind: "nan" }, /is NaN/],
    ["a bare Infinity token", { kind: "infinity" }, /is Infinity, outside 0..1/],
    ["a probability out of range", { kind: "out-of-range", value: 1.7 }, /is 1.7, outside 0..1/],
    ["a missing answer", { kind: "missing-answer" }, /no answer for q0/],
    ["a missing probability", { kind: "missing-probability" }, /is missing/],
    ["a string probability", { kind: "string-probability" }, /is a string/],
    ["a boolean probability", { kind: "boolean-probability" }, /is a boolean/],
  ];
  for (const [what, fault, detail] of broken) {
    it(`escalates ${what}`, async () => {
      const { server, scorer } = await faulty(fault, 1);
      const [out] = await scorer.score("parcel lost", [item]);
      expect(out.escalate).toMatch(/^invalid decision output: /);
      expect(out.escalate).toMatch(detail);
      expect(out.logits).toEqual([0, 0]);
      expect(server.requests.length).toBe(1);
      const [again] = await scorer.score("parcel lost", [item]);
      expect(again.escalate).toBeUndefined();
      expect(server.requests.length).toBe(2);
    });
  }

  it("escalates only the broken item of a batch", async () => {
    const { scorer } = await faulty({ kind: "missing-answer" }, 1);
    const other: Item = { name: "spam", kind: "yesno", question: "Is it spam?" };
    const [first, second] = await scorer.score("parcel lost", [item, other]);
    expect(first.escalate).toMatch(/invalid decision output/);
    expect(second.escalate).toBeUndefined();
  });
});
