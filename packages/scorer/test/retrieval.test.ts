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

  it("counts every item's questions against the budget, to the last unit", async () => {
    const items: Item[] = [
      item,
      {
        name: "tone",
        kind: "choice",
        question: "What is the tone?",
        options: ["calm", "angry"],
        notStated: true,
      },
    ];
    const decider = decisionDecider("http://127.0.0.1:9", "m");
    // What the contract measures a question by: its instructions, then each criterion's name and text.
    const questionUnits = items
      .flatMap((it) => Object.values(decider.scorer.questions(it)))
      .map((q) => [q.instructions, ...Object.entries(q.criteria ?? {}).flat()].filter(Boolean).join(" "))
      .reduce((sum, text) => sum + Math.round(estimateTokens(text) / 1.3), 0);
    const maxLen = 200;
    const budget = maxLen - questionUnits * 1.3;
    let fits = 0;
    while ((fits + 1) * 1.3 <= budget) fits++;
    const words = (n: number) => Array.from({ length: n }, (_, i) => `w${i}`).join(" ");
    const sent = async (state: string) => {
      const seen: OpenerRequest[] = [];
      const d = decisionDecider("http://127.0.0.1:9", "m", undefined, {
        maxLen,
        opener: async (req) => {
          seen.push(req);
          return { status: 200, headers: {}, body: '{"answers":{}}' };
        },
      });
      await d.decideAll(state, items);
      return JSON.parse(seen[0].body!).state as string;
    };
    expect(questionUnits).toBeGreaterThan(20);
    expect(await sent(words(fits))).toBe(words(fits));
    const over = await sent(words(fits + 1));
    expect(over).not.toBe(words(fits + 1));
    expect(estimateTokens(over)).toBeLessThanOrEqual(budget);
    // Long words: far more characters than the budget, within it in words.
    const long = Array.from({ length: 20 }, (_, i) => `${"x".repeat(60)}${i}`).join(" ");
    expect(await sent(long)).toBe(long);
  });
});
