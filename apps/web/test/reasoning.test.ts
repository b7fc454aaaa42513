// @vitest-environment node
import { describe, expect, it } from "vitest";
import { reasoningBlocks } from "../src/transforms/reasoning";

describe("reasoningBlocks", () => {
  it("reads a string, and the {text, tokens, thought} object the reference server sends", () => {
    expect(reasoningBlocks("because")).toEqual([{ text: "because" }]);
    expect(reasoningBlocks({ text: "for: x (+4.3)", tokens: 0, thought: false })).toEqual([
      { label: undefined, text: "for: x (+4.3)", tokens: undefined },
    ]);
    expect(reasoningBlocks({ text: "t", tokens: 12 })[0].tokens).toBe(12);
  });

  it("labels per-option reasoning of multi-label items", () => {
    const blocks = reasoningBlocks({ link: { text: "has a URL" }, money: "mentions $" });
    expect(blocks.map((b) => [b.label, b.text])).toEqual([
      ["link", "has a URL"],
      ["money", "mentions $"],
    ]);
  });

  it("shows nothing for no reasoning, and unknown shapes as JSON instead of dropping them", () => {
    expect(reasoningBlocks(null)).toEqual([]);
    expect(reasoningBlocks("  ")).toEqual([]);
    expect(reasoningBlocks([1, 2])[0].text).toContain("1");
  });
});
