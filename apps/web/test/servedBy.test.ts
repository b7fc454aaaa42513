// @vitest-environment node
import { describe, expect, it } from "vitest";
import { servedByLabel } from "../src/transforms/servedBy";

describe("servedByLabel", () => {
  it("names the checkpoint when no reply fell back", () => {
    expect(servedByLabel(["bayes-2"])).toBe("bayes-2");
    expect(servedByLabel(["bayes-1", "bayes-2"])).toBe("bayes-1, bayes-2");
  });

  it("says lexical fallback alone when every reply fell back", () => {
    expect(servedByLabel(["bayes-2+lexical"])).toBe("lexical fallback");
    expect(servedByLabel(["bayes-1+lexical", "bayes-2+lexical"])).toBe("lexical fallback");
  });

  it("names the checkpoint and the fallback when some replies fell back", () => {
    expect(servedByLabel(["bayes-2", "bayes-2+lexical"])).toBe("bayes-2 · lexical fallback");
    expect(servedByLabel(["bayes-2+lexical", "bayes-1"])).toBe("bayes-2, bayes-1 · lexical fallback");
  });

  it("leaves other names as they are and shows a dash when nothing was recorded", () => {
    expect(servedByLabel(["gpt-x"])).toBe("gpt-x");
    expect(servedByLabel(["lexical"])).toBe("lexical");
    expect(servedByLabel([])).toBe("—");
  });
});
