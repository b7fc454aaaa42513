import { describe, expect, it } from "vitest";
import { errorText } from "../src/errorText.js";
import { parseLenientJson } from "../src/json.js";

describe("reading replies with bare NaN and Infinity", () => {
  it("reads NaN, Infinity and -Infinity outside strings", () => {
    const doc = parseLenientJson('{"a": NaN, "b": [Infinity, -Infinity], "c": "NaN", "d": 1e-3}') as Record<
      string,
      unknown
    >;
    expect(Number.isNaN(doc.a)).toBe(true);
    expect(doc.b).toEqual([Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY]);
    expect(doc.c).toBe("NaN");
    expect(doc.d).toBe(0.001);
  });

  it("keeps strings with escapes intact", () => {
    expect(parseLenientJson('{"t": "say \\"NaN\\" \\u00e9", "x": NaN}')).toMatchObject({ t: 'say "NaN" é' });
  });

  it("still refuses a truncated body", () => {
    expect(() => parseLenientJson('{"answers": {"q0": {"noul": NaN')).toThrow(SyntaxError);
  });
});

describe("error text of a failed request", () => {
  it("prefers error.message and appends a gateway's metadata.raw with the provider", () => {
    const body = JSON.stringify({
      error: {
        message: "Provider returned error",
        code: 400,
        metadata: { raw: "context too long", provider_name: "X" },
      },
    });
    expect(errorText(body)).toBe("Provider returned error (X: context too long)");
  });

  it("uses a string detail, not the raw JSON", () => {
    expect(errorText('{"detail": "unknown options: [\'x\']"}')).toBe("unknown options: ['x']");
  });

  it("uses detail.message of the hosted service", () => {
    expect(errorText('{"detail": {"message": "too many tokens", "error_type": "tokens_exceeded"}}')).toBe(
      "too many tokens",
    );
  });

  it("joins a FastAPI detail list with locations", () => {
    expect(errorText('{"detail": [{"loc": ["body", "state"], "msg": "field required"}]}')).toBe(
      "body.state: field required",
    );
  });

  it("uses a string error or message", () => {
    expect(errorText('{"error": "rate limited"}')).toBe("rate limited");
    expect(errorText('{"message": "overloaded"}')).toBe("overloaded");
  });

  it("collapses white space and cuts long text", () => {
    expect(errorText("  bad \n\n gateway  ")).toBe("bad gateway");
    const long = errorText("x ".repeat(2000));
    expect(long.length).toBeLessThanOrEqual(400);
    expect(long.endsWith("…")).toBe(true);
  });
});
