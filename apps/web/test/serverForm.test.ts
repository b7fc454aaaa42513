// @vitest-environment node
import { describe, expect, it } from "vitest";
import { parseServerForm, serverFormValues, splitModels } from "../src/transforms/serverForm";
import { server } from "./fixtures";

function values(over: Partial<ReturnType<typeof serverFormValues>> = {}) {
  return { ...serverFormValues(), name: "Prod", baseUrl: "https://d.example.com", models: "m-1", ...over };
}

describe("parseServerForm", () => {
  it("builds a complete body for a new server", () => {
    const r = parseServerForm(
      values({ models: "m-1, m-2\nm-1", apiKey: "sk-123", extraBody: '{"options":{"max_think":8}}' }),
    );
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.input).toEqual({
      name: "Prod",
      baseUrl: "https://d.example.com",
      models: ["m-1", "m-2"],
      extraBody: { options: { max_think: 8 } },
      timeout: 30,
      retries: 2,
      backoff: 0.5,
      deterministic: false,
      requestsPerMinute: null,
      inputTokensPerMinute: null,
      inputPricePerMillion: null,
      outputPricePerMillion: null,
      apiKey: "sk-123",
    });
  });

  it("reads prices per million tokens: empty is none, a negative or text price is refused", () => {
    const r = parseServerForm(values({ inputPricePerMillion: "0.15", outputPricePerMillion: " 0.6 " }));
    expect(r.ok && r.input).toMatchObject({ inputPricePerMillion: 0.15, outputPricePerMillion: 0.6 });
    const bad = parseServerForm(values({ inputPricePerMillion: "-1", outputPricePerMillion: "cheap" }));
    expect(!bad.ok && bad.errors.inputPricePerMillion).toBe(
      'Input price per million tokens must be a number above 0 (e.g. 0.15), or empty for none; got "-1"',
    );
    expect(!bad.ok && bad.errors.outputPricePerMillion).toMatch(/Output price per million tokens must be/);
    const priced = server({ inputPricePerMillion: 2, outputPricePerMillion: null });
    expect(serverFormValues(priced).inputPricePerMillion).toBe("2");
  });

  it("reads rate limits: empty is no limit, thousands separators are fine, 0 or text is refused", () => {
    const r = parseServerForm(values({ requestsPerMinute: " 1,200 ", inputTokensPerMinute: "200000" }));
    expect(r.ok && r.input).toMatchObject({ requestsPerMinute: 1200, inputTokensPerMinute: 200000 });
    const bad = parseServerForm(values({ requestsPerMinute: "0", inputTokensPerMinute: "lots" }));
    expect(!bad.ok && bad.errors.requestsPerMinute).toBe(
      'Requests a minute must be a number above 0 (a minute\'s worth, e.g. 1200), or empty for no limit; got "0"',
    );
    expect(!bad.ok && bad.errors.inputTokensPerMinute).toMatch(
      /Input tokens a minute must be a number above 0/,
    );
  });

  it("shows a server's limits and sends null when one is emptied", () => {
    const limited = server({ requestsPerMinute: 3000, inputTokensPerMinute: null });
    const v = serverFormValues(limited);
    expect([v.requestsPerMinute, v.inputTokensPerMinute]).toEqual(["3000", ""]);
    const r = parseServerForm({ ...v, requestsPerMinute: "" }, limited);
    expect(r.ok && r.input.requestsPerMinute).toBeNull();
  });

  it("says what is wrong with each field", () => {
    const r = parseServerForm(
      values({
        name: " ",
        baseUrl: "ftp://x",
        models: " , ",
        timeout: "0",
        retries: "1.5",
        backoff: "-1",
        extraBody: "[1]",
      }),
    );
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.errors.name).toMatch(/name/);
    expect(r.errors.baseUrl).toMatch(/not an http\(s\) URL/);
    expect(r.errors.models).toMatch(/at least one model/);
    expect(r.errors.timeout).toMatch(/greater than 0/);
    expect(r.errors.retries).toMatch(/whole number/);
    expect(r.errors.backoff).toMatch(/0 or more/);
    expect(r.errors.extraBody).toMatch(/JSON object/);
  });

  it("refuses credentials in the URL and malformed JSON", () => {
    const r = parseServerForm(values({ baseUrl: "https://user:pw@d.example.com", extraBody: "{oops" }));
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.errors.baseUrl).toMatch(/API key field/);
    expect(r.errors.extraBody).toMatch(/not valid JSON/);
  });
});

describe("write-only API key", () => {
  const withKey = server({ hasApiKey: true });

  it("never puts the stored key in the form", () => {
    expect(serverFormValues(withKey).apiKey).toBe("");
  });

  it("keeps the stored key when the field is left empty (omits apiKey)", () => {
    const r = parseServerForm(serverFormValues(withKey), withKey);
    expect(r.ok && "apiKey" in r.input).toBe(false);
  });

  it("replaces it with a typed key, or removes it with apiKey: null", () => {
    const typed = parseServerForm({ ...serverFormValues(withKey), apiKey: "new-key" }, withKey);
    expect(typed.ok && typed.input.apiKey).toBe("new-key");
    const cleared = parseServerForm({ ...serverFormValues(withKey), clearKey: true }, withKey);
    expect(cleared.ok && cleared.input.apiKey).toBeNull();
  });

  it("refuses both at once, and a key with stray spaces", () => {
    const both = parseServerForm({ ...serverFormValues(withKey), clearKey: true, apiKey: "k" }, withKey);
    expect(!both.ok && both.errors.apiKey).toMatch(/not both/);
    const spaced = parseServerForm({ ...serverFormValues(withKey), apiKey: " k " }, withKey);
    expect(!spaced.ok && spaced.errors.apiKey).toMatch(/spaces/);
  });
});

describe("splitModels", () => {
  it("splits on commas and new lines, trims and deduplicates", () => {
    expect(splitModels("a, b\n\nc ,a")).toEqual(["a", "b", "c"]);
  });
});
