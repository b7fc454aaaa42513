import { describe, expect, it } from "vitest";
import type { Item, OpenerRequest } from "../src/index.js";
import { decisionDecider, estimateTokens } from "../src/index.js";

describe("estimateTokens", () => {
  it("counts (words + punctuation) * 1.3", () => {
    expect(estimateTokens("Hello, world!")).toBeCloseTo(4 * 1.3, 12);
    expect(estimateTokens("one two three")).toBeCloseTo(3 * 1.3, 12);
    expect(estimateTokens("")).toBe(0);
    expect(estimateTokens("Prix: 12,50 €.")).toBeCloseTo(7 * 1.3, 12);
  });
});

function fillerParagraph(i: number): string {
  return `Paragraph ${i} talks about gardening, weather in the valley and the colour of old fences near the river.`;
}

describe("maxLen retrieval", () => {
  const item: Item = {
    name: "refund",
    kind: "yesno",
    question: "Does the customer ask for a refund of the invoice?",
  };
  const paragraphs = Array.from({ length: 40 }, (_, i) => fillerParagraph(i));
  paragraphs[7] = "Please send me a refund for invoice 4411, the charge was made twice.";
  paragraphs[31] = "I expect the refund on the same card as the invoice.";
  const text = paragraphs.join("\n\n");

  async function sentState(maxLen?: number, state: unknown = text): Promise<unknown> {
    const seen: OpenerRequest[] = [];
    const decider = decisionDecider("http://127.0.0.1:9", "m", undefined, {
      maxLen,
      opener: async (req) => {
        seen.push(req);
        return { status: 200, headers: {}, body: '{"answers":{"q0":{"noul":0.9}}}' };
      },
    });
    await decider.decide(state as string, item);
    return JSON.parse(seen[0].body!).state;
  }

  it("sends a short text unchanged", async () => {
    expect(await sentState(512, "Please refund me.")).toBe("Please refund me.");
  });

  it("keeps the most relevant passages, in their original order, within the budget", async () => {
    expect(estimateTokens(text)).toBeGreaterThan(512);
    const sent = (await sentState(120)) as string;
    const question = estimateTokens(item.question);
    expect(estimateTokens(sent) + question).toBeLessThanOrEqual(120);
    const first = sent.indexOf("invoice 4411");
    const second = sent.indexOf("same card");
    expect(first).toBeGreaterThanOrEqual(0);
    expect(second).toBeGreaterThan(first);
  });

  it("applies the default budget of 512 when maxLen is not given", async () => {
    const sent = (await sentState(undefined)) as string;
    expect(sent.length).toBeLessThan(text.length);
    expect(estimateTokens(sent) + estimateTokens(item.question)).toBeLessThanOrEqual(512);
    expect(sent).toContain("invoice 4411");
  });

  it("never cuts a mapping state", async () => {
    const state = { note: text, amount: 12 };
    expect(await sentState(50, state)).toEqual(state);
  });

  it("splits one long paragraph without blank lines into sentences", async () => {
    const long = paragraphs.join(" ");
    const sent = (await sentState(100, long)) as string;
    expect(sent).toContain("refund for invoice 4411");
    expect(estimateTokens(sent) + estimateTokens(item.question)).toBeLessThanOrEqual(100);
  });
});
