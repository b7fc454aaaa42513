import { describe, expect, it } from "vitest";
import type { Decision, Item } from "../src/index.js";
import { decisionDecider } from "../src/index.js";
import { referenceServer } from "./helpers/server.js";

const item: Item = {
  name: "spam",
  kind: "yesno",
  question: "Is this email spam?",
  options: [
    { name: "yes", description: "Unsolicited bulk or commercial email" },
    { name: "no", description: "A legitimate personal or business message" },
  ],
};
const STATE = "Congratulations! You have won a free cruise. Click here to claim your prize money now.";

describe("replay", async () => {
  const server = await referenceServer();

  it("with deterministic false checks the recorded output without calling the service", async () => {
    const decider = decisionDecider(server.url, "lexical");
    const decision = await decider.decide(STATE, item);
    const count = server.requests.length;
    const report = await decider.replay(decision, STATE, item);
    expect(report).toEqual({ ok: true, called: false, differences: [] });
    expect(server.requests.length).toBe(count);
  });

  it("reports a recorded answer that does not follow from its recorded output", async () => {
    const decider = decisionDecider(server.url, "lexical");
    const decision = await decider.decide(STATE, item);
    expect(decision.status).toBe("answered");
    const tampered = {
      ...decision,
      answer: decision.status === "answered" && decision.answer === "yes" ? "no" : "yes",
    } as Decision;
    const report = await decider.replay(tampered, STATE, item);
    expect(report.ok).toBe(false);
    expect(report.called).toBe(false);
    expect(report.differences.map((d) => d.field)).toContain("answer");
  });

  it("reports a decision recorded against another model", async () => {
    const decision = await decisionDecider(server.url, "lexical").decide(STATE, item);
    const report = await decisionDecider(server.url, "other-model").replay(decision, STATE, item);
    expect(report.differences).toContainEqual({ field: "model", recorded: "lexical", now: "other-model" });
  });

  it("with deterministic true asks again, bypassing the cache, and finds nothing changed", async () => {
    const decider = decisionDecider(server.url, "lexical", undefined, { deterministic: true });
    const decision = await decider.decide(STATE, item);
    const count = server.requests.length;
    const report = await decider.replay(decision, STATE, item);
    expect(server.requests.length).toBe(count + 1);
    expect(report).toEqual({ ok: true, called: true, differences: [] });
  });
});

describe("replayAll", async () => {
  const server = await referenceServer();
  const topic: Item = {
    name: "topic",
    kind: "choice",
    question: "What is the email mostly about?",
    options: ["money", "travel", "work"],
  };
  const passages = [
    "The quarterly budget meeting moved to Thursday; bring the spreadsheet and the figures for the audit.",
    "Congratulations! You have won a free cruise to the Caribbean islands with your family this summer.",
    "Click here to claim your prize money now, before the offer expires at midnight tonight.",
    "Our team lunch is at noon in the usual place; reply if you have dietary needs.",
  ];
  const LONG = Array.from({ length: 12 }, (_, i) => passages[i % passages.length]).join("\n\n");

  it("sends the recorded batch again as one request, the same one, and finds nothing changed", async () => {
    const decider = decisionDecider(server.url, "lexical", undefined, { deterministic: true, maxLen: 120 });
    const decisions = await decider.decideAll(LONG, [item, topic]);
    const sent = server.requests[server.requests.length - 1].body;
    const count = server.requests.length;
    const reports = await decider.replayAll(decisions, LONG, [item, topic]);
    expect(server.requests.length).toBe(count + 1);
    expect(server.requests[count].body).toEqual(sent);
    expect(reports).toEqual([
      { ok: true, called: true, differences: [] },
      { ok: true, called: true, differences: [] },
    ]);
    // item by item, the long text is cut for one question only: another request than the recorded one
    await decider.replay(decisions[0], LONG, item);
    const alone = JSON.parse(server.requests[server.requests.length - 1].body) as { state: string };
    expect(alone.state).not.toEqual((JSON.parse(sent) as { state: string }).state);
    expect(alone.state.length).toBeLessThan(LONG.length);
  });

  it("checks recorded outputs without a request when not deterministic, and wants one decision per item", async () => {
    const decider = decisionDecider(server.url, "lexical");
    const decisions = await decider.decideAll(STATE, [item, topic]);
    const count = server.requests.length;
    const reports = await decider.replayAll(decisions, STATE, [item, topic]);
    expect(reports.map((r) => r.called)).toEqual([false, false]);
    expect(reports.every((r) => r.ok)).toBe(true);
    expect(server.requests.length).toBe(count);
    await expect(decider.replayAll(decisions.slice(1), STATE, [item, topic])).rejects.toThrow(
      /one recorded decision per item/,
    );
  });
});

describe("replay catches a weight swap behind the same model name", () => {
  it("reports the served model and the probabilities that moved", async () => {
    const first = await referenceServer({ alias: "bayes-1" });
    const port = Number(new URL(first.url).port);
    const decider = decisionDecider(first.url, "workbench-latest", undefined, { deterministic: true });
    const spamItem: Item = { ...item };
    const decision = await decider.decide(STATE, spamItem);
    await first.close();
    const second = await referenceServer({ alias: "bayes-2", port });
    expect(second.url).toBe(first.url);
    const report = await decider.replay(decision, STATE, spamItem);
    expect(report.called).toBe(true);
    expect(report.ok).toBe(false);
    const fields = report.differences.map((d) => d.field);
    expect(fields).toContain("served_by");
    expect(fields).toContain("probabilities");
  });
});
