import { describe, expect, it } from "vitest";
import type { Item } from "../src/index.js";
import { DecisionScorer, decisionDecider, RemoteClientError, ServiceError } from "../src/index.js";
import { referenceServer } from "./helpers/server.js";

const KEY = "sk-test-7f3a9c1e5b2d";
const item: Item = { name: "spam", kind: "yesno", question: "Is it spam?" };

describe("the API key travels in the Authorization header only", async () => {
  const server = await referenceServer({ apiKey: KEY });

  it("sends Bearer <key> and nothing else carries it", async () => {
    const scorer = new DecisionScorer(`${server.url}/?tenant=a`, "lexical", KEY);
    const [out] = await scorer.score("Win money now", [item]);
    expect(out.escalate).toBeUndefined();
    const req = server.requests.at(-1)!;
    expect(req.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(req.body).not.toContain(KEY);
    expect(JSON.stringify(out.record)).not.toContain(KEY);
    expect(scorer.fingerprint).not.toContain(KEY);
  });

  it("raises ServiceError for a wrong key, with the endpoint and never the key", async () => {
    const wrong = `${KEY}-wrong`;
    const scorer = new DecisionScorer(server.url, "lexical", wrong);
    const error = await scorer.score("Win money now", [item]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServiceError);
    expect(error).toBeInstanceOf(RemoteClientError);
    expect((error as ServiceError).status).toBe(401);
    expect((error as Error).message).toContain(`${server.url}/v1/decision`);
    expect((error as Error).message).not.toContain(wrong);
    expect((error as Error).message).not.toContain(KEY);
  });

  it("raises ServiceError without a key", async () => {
    const decider = decisionDecider(server.url, "lexical");
    await expect(decider.decide("x", item)).rejects.toBeInstanceOf(ServiceError);
  });

  it("raises ServiceError for a wrong URL (404)", async () => {
    const scorer = new DecisionScorer(`${server.url}/no/such/prefix`, "lexical", KEY);
    const error = await scorer.score("x", [item]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServiceError);
    expect((error as ServiceError).status).toBe(404);
    expect((error as Error).message).toContain("/no/such/prefix/v1/decision");
  });
});

describe("a local server without a key", async () => {
  const server = await referenceServer();

  it("gets no Authorization header", async () => {
    const scorer = new DecisionScorer(server.url, "lexical");
    await scorer.score("hello", [item]);
    expect(server.requests.at(-1)!.headers.authorization).toBeUndefined();
  });
});
