import { describe, expect, it } from "vitest";
import { parseArgs } from "../src/cli/args.js";
import { UsageError } from "../src/cli/flags.js";
import {
  checkRateLimit,
  limiter,
  parseRateLimit,
  RateLimitError,
  TokenBucket,
} from "../src/http/rateLimit.js";
import { startDecisionServer } from "../src/index.js";
import { get, post, sampleRequest, server } from "./helpers.js";

describe("the token bucket", () => {
  it("admits a burst, then one request per 1/rate seconds, and says how long to wait", () => {
    let t = 0;
    const bucket = new TokenBucket(2, 3, () => t);
    expect([bucket.take(), bucket.take(), bucket.take()]).toEqual([0, 0, 0]);
    expect(bucket.take()).toBe(0.5);
    t = 250;
    expect(bucket.take()).toBe(0.25); // half a token back: a quarter of a second to the next
    t = 500;
    expect(bucket.take()).toBe(0);
    expect(bucket.take()).toBe(0.5);
    t = 60_000;
    expect(bucket.remaining).toBe(3); // never more than the burst
  });

  it("refills a per-minute limit continuously, with one second's worth as the default burst", () => {
    let t = 0;
    const limit = checkRateLimit("120/m");
    expect(limit).toEqual({ requests: 120, per: "minute", burst: 2 });
    const gate = limiter(limit, () => t);
    expect(gate.admit()).toBeUndefined();
    expect(gate.admit()).toBeUndefined();
    const refused = gate.admit();
    expect(refused?.headers).toMatchObject({ "retry-after": "1", "retry-after-ms": "500" });
    expect(refused?.detail).toBe(
      "rate limit exceeded: at most 120 requests per minute (bursts of 2); retry after 0.5 s",
    );
    t = 500;
    expect(gate.admit()).toBeUndefined();
    expect(checkRateLimit("5/m").burst).toBe(1);
  });

  it("reads N/s and N/m and refuses anything else, saying what is right", () => {
    expect(parseRateLimit("50/s")).toEqual({ requests: 50, per: "second" });
    expect(parseRateLimit(" 1200 / min ")).toEqual({ requests: 1200, per: "minute" });
    expect(parseRateLimit("0.5/second")).toEqual({ requests: 0.5, per: "second" });
    for (const bad of ["50", "50/h", "0/s", "-1/s", "fast"]) {
      expect(() => parseRateLimit(bad)).toThrow(RateLimitError);
      expect(() => parseRateLimit(bad)).toThrow(
        /a rate limit is N\/s or N\/m .* such as 50\/s or 1200\/m; got/,
      );
    }
    expect(() => checkRateLimit({ requests: 5, per: "second", burst: 0.5 })).toThrow(/burst must be/);
  });
});

describe("a rate-limited reference server", async () => {
  const limited = await server({ checkpoints: false, rateLimit: { requests: 10, per: "second", burst: 4 } });

  it("answers 429 with Retry-After and retry-after-ms beyond the limit, and admits again after the wait", async () => {
    const started = performance.now();
    const replies = await Promise.all(Array.from({ length: 16 }, () => post(limited, sampleRequest())));
    const elapsed = (performance.now() - started) / 1000;
    const ok = replies.filter((r) => r.status === 200);
    const refused = replies.filter((r) => r.status === 429);
    expect(ok.length + refused.length).toBe(16);
    expect(ok.length).toBeGreaterThanOrEqual(4);
    expect(ok.length).toBeLessThanOrEqual(4 + Math.ceil(elapsed * 10));
    expect(refused.length).toBeGreaterThan(0);
    let longest = 0;
    for (const r of refused) {
      const ms = Number(r.headers.get("retry-after-ms"));
      expect(ms).toBeGreaterThan(0);
      expect(ms).toBeLessThanOrEqual(100); // one token at 10 per second
      expect(r.headers.get("retry-after")).toBe("1");
      expect(r.headers.get("x-ratelimit-remaining-requests")).toBe("0");
      expect((r.json as { detail: string }).detail).toMatch(
        /^rate limit exceeded: at most 10 requests per second \(bursts of 4\); retry after 0\.\d+ s$/,
      );
      longest = Math.max(longest, ms);
    }
    expect(ok[0].headers.get("x-ratelimit-limit-requests")).toBe("10");
    expect(limited.rateLimited).toBe(refused.length);
    expect(limited.requests.filter((r) => r.limited).length).toBe(refused.length);
    await new Promise((r) => setTimeout(r, longest + 5));
    expect((await post(limited, sampleRequest())).status).toBe(200);
  });

  it("leaves GET /v1/models and /health unlimited", async () => {
    const replies = await Promise.all(Array.from({ length: 12 }, () => get(limited, "/v1/models")));
    expect(replies.every((r) => r.status === 200)).toBe(true);
    expect(replies[0].json).toEqual((await get(await server({ checkpoints: false }), "/v1/models")).json);
    expect((await get(limited, "/health")).status).toBe(200);
  });

  it("counts only admitted requests for the fault plan", async () => {
    const both = await server({
      checkpoints: false,
      rateLimit: { requests: 1, per: "minute", burst: 1 },
      faults: { rules: [{ on: [2], fault: { kind: "status", status: 503 } }] },
    });
    expect((await post(both, sampleRequest())).status).toBe(200);
    const second = await post(both, sampleRequest());
    expect(second.status).toBe(429);
    expect(Number(second.headers.get("retry-after"))).toBeGreaterThanOrEqual(59);
    expect(Number(second.headers.get("retry-after"))).toBeLessThanOrEqual(60);
  });

  it("refuses a bad rateLimit option at start", async () => {
    await expect(startDecisionServer({ port: 0, checkpoints: false, rateLimit: "many" })).rejects.toThrow(
      RateLimitError,
    );
  });
});

describe("--rate-limit and --rate-burst", () => {
  it("are read into the rateLimit option", () => {
    expect(parseArgs(["--rate-limit", "50/s"], {}).rateLimit).toEqual({ requests: 50, per: "second" });
    expect(parseArgs(["--rate-burst=5", "--rate-limit=1200/m"], {}).rateLimit).toEqual({
      requests: 1200,
      per: "minute",
      burst: 5,
    });
  });

  it("refuse bad values with what is right", () => {
    expect(() => parseArgs(["--rate-limit", "50"], {})).toThrow(UsageError);
    expect(() => parseArgs(["--rate-limit", "50"], {})).toThrow(
      /^--rate-limit: a rate limit is N\/s or N\/m/,
    );
    expect(() => parseArgs(["--rate-burst", "0", "--rate-limit", "5/s"], {})).toThrow(
      "--rate-burst must be a number of requests of at least 1, got '0'",
    );
    expect(() => parseArgs(["--rate-burst", "3"], {})).toThrow("--rate-burst needs --rate-limit N/s or N/m");
  });
});
