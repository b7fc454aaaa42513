// @vitest-environment node

import type { ServerCheck } from "@decision-workbench/api/shapes";
import { describe, expect, it } from "vitest";
import { ApiError } from "../src/api/client";
import {
  checkRequest,
  checkSummary,
  firstInvalid,
  parseServerForm,
  serverFormApiErrors,
  serverFormValues,
  splitModels,
  toggleModel,
} from "../src/transforms/serverForm";
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

describe("limits the API has", () => {
  it("refuses a timeout above an hour, more than 20 retries and a backoff above 600 s, in words", () => {
    const r = parseServerForm(values({ timeout: "7200", retries: "21", backoff: "601" }));
    expect(!r.ok && r.errors.timeout).toBe("Timeout must be 3,600 or less, got 7200");
    expect(!r.ok && r.errors.retries).toBe("Retries must be 20 or less, got 21");
    expect(!r.ok && r.errors.backoff).toBe("Backoff must be 600 or less, got 601");
  });

  it("refuses a model name longer than 200 characters", () => {
    const r = parseServerForm(values({ models: "x".repeat(201) }));
    expect(!r.ok && r.errors.models).toMatch(/201 characters long; keep it to 200/);
  });
});

describe("firstInvalid", () => {
  it("names the first field with a problem in the form's order, or null", () => {
    expect(firstInvalid({ timeout: "t", models: "m", extraBody: "e" })).toBe("models");
    expect(firstInvalid({ apiKey: "k", models: "m" })).toBe("apiKey");
    expect(firstInvalid({})).toBeNull();
  });
});

describe("checkRequest", () => {
  const stored = server({ id: "srv_s", baseUrl: "https://decide.example.com", hasApiKey: true });

  it("checks a stored server as it is while its base URL and key are unchanged", () => {
    expect(checkRequest(serverFormValues(stored), stored)).toEqual({ ok: true, stored: "srv_s" });
  });

  it("checks the settings as typed otherwise, leaving out what does not read", () => {
    const r = checkRequest(
      { ...serverFormValues(stored), baseUrl: " https://other.example.com ", apiKey: "sk-new", timeout: "x" },
      stored,
    );
    expect(r).toEqual({
      ok: true,
      draft: {
        baseUrl: "https://other.example.com",
        apiKey: "sk-new",
        models: ["m-1", "m-2"],
        retries: 2,
        backoff: 0.5,
      },
    });
    const fresh = checkRequest(values({ name: "", models: "", extraBody: '{"options":{"think":false}}' }));
    expect(fresh).toEqual({
      ok: true,
      draft: {
        baseUrl: "https://d.example.com",
        extraBody: { options: { think: false } },
        timeout: 30,
        retries: 2,
        backoff: 0.5,
      },
    });
  });

  it("refuses a base URL that is not one, as saving would", () => {
    const r = checkRequest(values({ baseUrl: "decide.example.com" }));
    expect(r).toEqual({
      ok: false,
      errors: {
        baseUrl:
          "“decide.example.com” is not an http(s) URL; expected something like https://decisions.example.com.",
      },
    });
  });
});

describe("toggleModel", () => {
  it("adds a ticked model at the end and takes an unticked one out, keeping typed names", () => {
    expect(toggleModel(["typed-by-hand"], "listed-1", true)).toEqual(["typed-by-hand", "listed-1"]);
    expect(toggleModel(["a", "listed-1", "b"], "listed-1", false)).toEqual(["a", "b"]);
    expect(toggleModel(["a"], "a", true)).toEqual(["a"]);
  });
});

describe("checkSummary", () => {
  const check = (
    over: Partial<ServerCheck> = {},
    probe: Partial<ServerCheck["probe"]> = {},
  ): ServerCheck => ({
    ok: true,
    models: [{ name: "workbench-latest" }, { name: "lexical", description: "word counts" }],
    ...over,
    probe: {
      model: "workbench-latest",
      status: "answered",
      answer: "yes",
      confidence: 0.916,
      ms: 12,
      ...probe,
    },
  });

  it("offers the listed models and says the test question's answer", () => {
    const s = checkSummary(check());
    expect(s.models.map((m) => m.name)).toEqual(["workbench-latest", "lexical"]);
    expect(s.modelsSentence).toBe("The server lists 2 models: tick the ones to use, or type another name.");
    expect(checkSummary(check(), false).modelsSentence).toBe("The server lists 2 models:");
    expect(s.probeSentence).toBe(
      "A test question to workbench-latest was answered: “yes” with 92 % confidence.",
    );
    expect(s.details).toEqual([]);
    const fellBack = checkSummary(check({}, { servedBy: "bayes-2+lexical" }));
    expect(fellBack.probeSentence).toBe(
      "A test question to workbench-latest was answered: “yes” with 92 % confidence (served by lexical fallback).",
    );
  });

  it("keeps HTTP paths and statuses in the details and says what to do in the sentences", () => {
    const s = checkSummary(
      check(
        {
          ok: false,
          models: null,
          modelsError: "GET https://d.example.com/v1/models answered HTTP 401: check the API key",
        },
        {
          status: "error",
          reason: "the decision service answered HTTP 401",
          answer: undefined,
          confidence: undefined,
        },
      ),
    );
    expect(s.models).toEqual([]);
    expect(s.modelsSentence).toBe("The server did not list its models: type the names it accepts in Models.");
    expect(s.probeSentence).toBe("A test question to workbench-latest was refused: check the API key.");
    expect(`${s.modelsSentence} ${s.probeSentence}`).not.toMatch(/HTTP|\/v1\//);
    expect(s.details).toHaveLength(2);
  });

  it("says when no test question could be sent", () => {
    const s = checkSummary(
      check({ ok: false, models: [] }, { model: "", status: "error", reason: "no probe" }),
    );
    expect(s.modelsSentence).toBe("The server lists no models: type the names it accepts in Models.");
    expect(s.probeSentence).toBe("No test question was sent: there is no model to ask yet.");
  });
});

describe("serverFormApiErrors", () => {
  const refused = (message: string, status = 400) => serverFormApiErrors(new ApiError(status, "x", message));

  it("puts each refused field's message on that field as a sentence, in the form's words", () => {
    expect(refused("body.timeout must be <= 3600; body.retries must be >= 0")).toEqual({
      errors: { timeout: "Timeout must be at most 3600 seconds.", retries: "Retries must be at least 0." },
      rest: [],
    });
  });

  it("places an outbound refusal on the base URL and a stored key's refusal on the key", () => {
    const url = refused(
      "body.baseUrl: the host 10.0.0.5 is a private address (10.0.0.0/8); a workbench started with a token connects to private and loopback addresses only when started with --allow-private-servers",
    );
    expect(url.errors.baseUrl).toMatch(/^Base URL: the host 10\.0\.0\.5 is a private address/);
    expect(url.errors.baseUrl).not.toContain("body.");
    const key = refused(
      "this server has an API key, which is never sent to a new host: send it again with the new base URL (body.apiKey), or body.apiKey: null to drop it",
    );
    expect(key.errors.apiKey).toBe(
      "The stored key is never sent to a new address: type the key again for this base URL, or tick “Remove the stored key”.",
    );
    expect(key.rest).toEqual([]);
  });

  it("keeps what names no field as a sentence of its own", () => {
    expect(
      refused("the embedded reference server's base URL is set by the workbench at each start", 409),
    ).toEqual({
      errors: {},
      rest: ["The embedded reference server's base URL is set by the workbench at each start."],
    });
  });
});
