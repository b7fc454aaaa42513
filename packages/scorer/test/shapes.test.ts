import { describe, expect, it } from "vitest";
import { DecisionScorer, decisionDecider, ServiceError } from "../src/index.js";
import { team, urgent } from "./helpers/items.js";
import { scripted, yes } from "./helpers/scripted.js";
import { recordingSleep, referenceServer } from "./helpers/server.js";

// Real-world reply shapes the reference server's models never send, from small servers in the tests.

function scorerOf(url: string, options = {}) {
  const { waits, sleep } = recordingSleep();
  return { scorer: new DecisionScorer(url, "m", "sk-test-KEY-0123456789", { sleep, ...options }), waits };
}

describe("the reply's request id", () => {
  const forms: [string, Record<string, string>, string][] = [
    ["x-request-id", { "x-request-id": "req_abc123", "cf-ray": "8f1e-AMS" }, "req_abc123"],
    ["a vendor's x-...-request-id", { "x-acme-request-id": "acme-77", "cf-ray": "8f1e-AMS" }, "acme-77"],
    ["x-amzn-requestid", { "x-amzn-requestid": "amzn-1", "cf-ray": "8f1e-AMS" }, "amzn-1"],
    ["request-id", { "request-id": "req_011", "cf-ray": "8f1e-AMS" }, "req_011"],
    ["cf-ray", { "cf-ray": "8f1e2d3c4b5a-AMS" }, "8f1e2d3c4b5a-AMS"],
  ];
  for (const [what, headers, id] of forms) {
    it(`is read from ${what} onto the decision record`, async () => {
      const server = await scripted([{ headers, body: yes(0.9) }]);
      const [out] = await scorerOf(server.url).scorer.score("x", [urgent]);
      expect(out.record.request_id).toBe(id);
    });
  }

  it("is absent when the reply names none", async () => {
    const server = await scripted([{ body: yes(0.9) }]);
    const [out] = await scorerOf(server.url).scorer.score("x", [urgent]);
    expect("request_id" in out.record).toBe(false);
  });

  it("is kept by a cached answer", async () => {
    const server = await scripted([
      { headers: { "x-request-id": "first" }, body: yes(0.9) },
      { headers: { "x-request-id": "second" }, body: yes(0.9) },
    ]);
    const { scorer } = scorerOf(server.url);
    await scorer.score("x", [urgent]);
    const [again] = await scorer.score("x", [urgent]);
    expect(server.bodies).toHaveLength(1);
    expect(again.record.request_id).toBe("first");
  });

  it("is quoted in every escalation reason and error", async () => {
    const id = { "x-request-id": "req-42" };
    const cases: [string, ReturnType<typeof scripted>, RegExp][] = [
      [
        "a refusal",
        scripted([{ status: 422, headers: id, body: { detail: "bad option" } }]),
        /^the decision service refused the request: HTTP 422 bad option \(request id req-42\)$/,
      ],
      [
        "retries exhausted",
        scripted([{ status: 503, headers: id }]),
        /^the decision service did not answer after 3 attempts: HTTP 503 \(request id req-42\)$/,
      ],
      [
        "invalid output",
        scripted([{ headers: id, body: { answers: { q0: { noul: 7 } } } }]),
        /^invalid decision output: .*outside 0\.\.1 \(request id req-42\)$/,
      ],
      [
        "no answers",
        scripted([{ headers: id, body: { model: "m" } }]),
        /^invalid decision output: the reply has no answers object \(request id req-42\)$/,
      ],
      [
        "a gateway error in a 200",
        scripted([{ headers: id, body: { error: { message: "Provider returned error" } } }]),
        /^the decision service answered with an error: Provider returned error \(request id req-42\)$/,
      ],
      [
        "an empty 200",
        scripted([{ headers: id, body: "" }]),
        /^the decision service did not answer after 3 attempts: the reply was empty .* \(request id req-42\)$/,
      ],
    ];
    for (const [what, started, reason] of cases) {
      const server = await started;
      const [out] = await scorerOf(server.url).scorer.score("x", [urgent]);
      expect(out.escalate, what).toMatch(reason);
      expect(out.record.request_id, what).toBe("req-42");
    }
    const server = await scripted([{ status: 401, headers: id, body: { detail: "invalid API key" } }]);
    const error = await scorerOf(server.url)
      .scorer.score("x", [urgent])
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServiceError);
    expect((error as ServiceError).message).toContain(
      "answered HTTP 401 invalid API key (request id req-42)",
    );
    expect((error as ServiceError).requestId).toBe("req-42");
  });
});

describe("base URL", () => {
  it("is not given /v1/decision twice when it already ends in it", async () => {
    const server = await referenceServer({ checkpoints: false });
    for (const base of [`${server.url}/v1/decision`, `${server.url}/v1/decision/`]) {
      const decider = decisionDecider(base, "lexical");
      expect(decider.endpoint).toBe(`${server.url}/v1/decision`);
      expect((await decider.decide("parcel lost", team)).status).toBe("answered");
    }
    expect(new DecisionScorer("https://gw.example.com/api/v1/decision?x=1", "m").endpoint).toBe(
      "https://gw.example.com/api/v1/decision",
    );
  });
});

describe("a 200 that is not a reply", () => {
  it("retries an empty body and a proxy's HTML page like a broken connection, then answers", async () => {
    const server = await scripted([
      { body: "" },
      { body: "<html><body>502 Bad Gateway</body></html>", headers: { "content-type": "text/html" } },
      { body: yes(0.8) },
    ]);
    const { scorer, waits } = scorerOf(server.url);
    const [out] = await scorer.score("x", [urgent]);
    expect(out.escalate).toBeUndefined();
    expect(server.bodies).toHaveLength(3);
    expect(waits).toEqual([1, 2]);
  });

  it("escalates after the contract's attempts when it stays empty, and is not cached", async () => {
    const server = await scripted((n) => (n < 3 ? { body: "   " } : { body: yes(0.8) }));
    const { scorer } = scorerOf(server.url);
    const [out] = await scorer.score("x", [urgent]);
    expect(out.escalate).toBe(
      "the decision service did not answer after 3 attempts: the reply was empty (HTTP 200 without a body)",
    );
    const [again] = await scorer.score("x", [urgent]);
    expect(again.escalate).toBeUndefined();
  });

  it("escalates a gateway error with the provider's message and wrapped cause, at once", async () => {
    const server = await scripted([
      {
        body: {
          error: {
            message: "Provider returned error",
            code: 502,
            metadata: { raw: "upstream model overloaded", provider_name: "Acme" },
          },
        },
      },
    ]);
    const { scorer, waits } = scorerOf(server.url);
    const [out] = await scorer.score("x", [urgent]);
    expect(out.escalate).toBe(
      "the decision service answered with an error: Provider returned error (Acme: upstream model overloaded)",
    );
    expect(waits).toEqual([]);
    expect(server.bodies).toHaveLength(1);
  });

  it("escalates a failed {result, success, errors, messages} envelope with its errors", async () => {
    const server = await scripted([
      {
        body: {
          result: null,
          success: false,
          errors: [
            { code: 7003, message: "No route for that URI" },
            { code: 10000, message: "Authentication error" },
          ],
          messages: [],
        },
      },
    ]);
    const [out] = await scorerOf(server.url).scorer.score("x", [urgent]);
    expect(out.escalate).toBe(
      "the decision service answered with an error: No route for that URI (code 7003); Authentication error (code 10000)",
    );
  });

  it("reads a successful envelope's result as the reply", async () => {
    const server = await scripted([
      {
        body: { result: yes(0.85, { usage: { input_tokens: 12 } }), success: true, errors: [], messages: [] },
      },
    ]);
    const [out] = await scorerOf(server.url).scorer.score("x", [urgent]);
    expect(out.escalate).toBeUndefined();
    expect(Math.exp(out.logits[0])).toBeCloseTo(0.85, 9);
    expect(out.record.usage).toEqual({ input_tokens: 12 });
  });

  it("never quotes an API key the gateway echoes", async () => {
    const server = await scripted([{ body: { error: { message: "bad key sk-test-KEY-0123456789 given" } } }]);
    const [out] = await scorerOf(server.url).scorer.score("x", [urgent]);
    expect(out.escalate).toBe("the decision service answered with an error: bad key [redacted] given");
  });
});

describe("a 3xx", () => {
  it("is not followed and says where it points and what to do, never the path or query", async () => {
    const target = await scripted([{ body: yes(0.9) }]);
    const server = await scripted([
      { status: 301, headers: { location: `${target.url}/private/v1/decision?token=QUERY-SECRET` } },
    ]);
    const error = await scorerOf(server.url)
      .scorer.score("x", [urgent])
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServiceError);
    const message = (error as ServiceError).message;
    expect(message).toBe(
      `the decision service at ${server.url}/v1/decision answered HTTP 301, a redirect to ${target.url}; the scorer does not follow redirects (an API key must not travel to another address): set the base URL to the address the service answers at`,
    );
    expect(message).not.toContain("QUERY-SECRET");
    expect(target.bodies).toHaveLength(0);
  });

  it("without a Location, quotes the reply's text", async () => {
    const server = await scripted([{ status: 302, body: { error: { message: "moved elsewhere" } } }]);
    const error = await scorerOf(server.url)
      .scorer.score("x", [urgent])
      .catch((e: unknown) => e);
    expect((error as ServiceError).message).toContain(
      "answered HTTP 302 moved elsewhere; the scorer does not follow redirects",
    );
    expect((error as ServiceError).status).toBe(302);
  });
});
