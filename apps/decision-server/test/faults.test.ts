import { request as httpRequest } from "node:http";
import { describe, expect, it } from "vitest";
import {
  type DecisionServerHandle,
  type Fault,
  type FaultPlan,
  FaultPlanError,
  parseFaultPlan,
  startDecisionServer,
  validateFaultPlan,
} from "../src/index.js";
import { get, post, sampleRequest } from "./helpers.js";

/** Runs `fn` against a lexical-only server with the given plan, then closes it. */
async function withServer<T>(faults: FaultPlan, fn: (h: DecisionServerHandle) => Promise<T>): Promise<T> {
  const handle = await startDecisionServer({ port: 0, checkpoints: false, faults });
  try {
    return await fn(handle);
  } finally {
    await handle.close();
  }
}

function always(fault: Fault): FaultPlan {
  return { rules: [{ fault }] };
}

type Json = Record<string, Record<string, Record<string, unknown>>>;

/** Sends the raw request and collects status, headers and every byte until the socket ends or breaks. */
function rawPost(handle: DecisionServerHandle, body: string) {
  return new Promise<{ status: number; length: string | undefined; received: number; broken: boolean }>(
    (resolve, reject) => {
      const req = httpRequest(`${handle.url}/v1/decision`, { method: "POST" }, (res) => {
        let received = 0;
        let broken = false;
        res.on("data", (chunk: Buffer) => {
          received += chunk.length;
        });
        res.on("error", () => {
          broken = true;
        });
        res.on("aborted", () => {
          broken = true;
        });
        res.on("close", () =>
          resolve({ status: res.statusCode ?? 0, length: res.headers["content-length"], received, broken }),
        );
      });
      req.on("error", reject);
      req.end(body);
    },
  );
}

describe("status faults", () => {
  it.each([408, 409, 413, 429, 500, 503, 401, 403, 404])(
    "answers %i with its reason phrase as detail",
    async (status) => {
      await withServer(always({ kind: "status", status }), async (h) => {
        const r = await post(h, sampleRequest());
        expect(r.status).toBe(status);
        const detail = (r.json as { detail: string }).detail;
        expect(typeof detail).toBe("string");
        expect(detail.length).toBeGreaterThan(0);
      });
    },
  );

  it("names 529 as overloaded", async () => {
    await withServer(always({ kind: "status", status: 529 }), async (h) => {
      const r = await post(h, sampleRequest());
      expect(r.status).toBe(529);
      expect(r.json).toEqual({ detail: "Site Overloaded" });
    });
  });

  it("sends a chosen body (a 422 detail) and headers (Retry-After)", async () => {
    const plan: FaultPlan = {
      rules: [
        {
          on: [1],
          fault: {
            kind: "status",
            status: 422,
            body: { detail: "max_think must be a non-negative integer" },
          },
        },
        { on: [2], fault: { kind: "status", status: 429, headers: { "retry-after": "7" } } },
      ],
    };
    await withServer(plan, async (h) => {
      const r1 = await post(h, sampleRequest());
      expect(r1.status).toBe(422);
      expect(r1.json).toEqual({ detail: "max_think must be a non-negative integer" });
      const r2 = await post(h, sampleRequest());
      expect(r2.status).toBe(429);
      expect(r2.headers.get("retry-after")).toBe("7");
      expect(r2.json).toEqual({ detail: "Too Many Requests" });
    });
  });

  it("sends a gateway body with error.metadata.raw and the provider", async () => {
    const plan: FaultPlan = {
      rules: [
        { on: [1], fault: { kind: "gateway", status: 400, raw: "prompt is too long", provider: "Acme" } },
        { on: [2], fault: { kind: "gateway", status: 502, raw: "upstream timed out" } },
      ],
    };
    await withServer(plan, async (h) => {
      const r1 = await post(h, sampleRequest());
      expect(r1.status).toBe(400);
      expect(r1.json).toEqual({
        error: {
          message: "Provider returned error",
          code: 400,
          metadata: { raw: "prompt is too long", provider_name: "Acme" },
        },
      });
      const r2 = await post(h, sampleRequest());
      expect(r2.status).toBe(502);
      expect(r2.json).toEqual({
        error: { message: "Provider returned error", code: 502, metadata: { raw: "upstream timed out" } },
      });
    });
  });
});

describe("transport faults", () => {
  it("delays past a client's timeout", async () => {
    await withServer(always({ kind: "delay", ms: 10_000 }), async (h) => {
      const attempt = fetch(`${h.url}/v1/decision`, {
        method: "POST",
        body: JSON.stringify(sampleRequest()),
        signal: AbortSignal.timeout(100),
      });
      await expect(attempt).rejects.toThrow(/timeout|aborted/i);
    });
  });

  it("answers normally after a short delay", async () => {
    await withServer(always({ kind: "delay", ms: 20 }), async (h) => {
      const r = await post(h, sampleRequest());
      expect(r.status).toBe(200);
      expect(Object.keys((r.json as Json).answers)).toHaveLength(6);
    });
  });

  it("resets the connection without a reply", async () => {
    await withServer(always({ kind: "reset" }), async (h) => {
      await expect(post(h, sampleRequest())).rejects.toThrow();
      expect(h.requests).toHaveLength(1);
    });
  });

  it("truncates: status 200, the full content-length, half the body, then closes", async () => {
    await withServer(always({ kind: "truncate" }), async (h) => {
      const r = await rawPost(h, JSON.stringify(sampleRequest()));
      expect(r.status).toBe(200);
      const full = Number(r.length);
      expect(full).toBeGreaterThan(100);
      expect(r.received).toBe(Math.floor(full / 2));
      expect(r.broken).toBe(true);
    });
  });
});

describe("body faults", () => {
  const choiceFirst = sampleRequest();
  const noulFirst = {
    ...sampleRequest(),
    questions: { q1: { type: "noul", instructions: "Is this urgent?" } },
  };

  it("writes a bare NaN token for the first probability of a choice and for a noul", async () => {
    await withServer(always({ kind: "nan" }), async (h) => {
      const r = await post(h, choiceFirst);
      expect(r.status).toBe(200);
      expect(r.text).toContain('"probabilities":{"billing":NaN,');
      expect(r.json).toBeUndefined();
      const r2 = await post(h, noulFirst);
      expect(r2.text).toContain('"noul":NaN}');
    });
  });

  it("writes a bare Infinity token", async () => {
    await withServer(always({ kind: "infinity" }), async (h) => {
      const r = await post(h, choiceFirst);
      expect(r.text).toContain('"probabilities":{"billing":Infinity,');
      expect(r.text.match(/Infinity/g)).toHaveLength(1);
    });
  });

  it("sets a probability out of range (1.7 by default, or the value given)", async () => {
    await withServer(always({ kind: "out-of-range" }), async (h) => {
      const r = await post(h, choiceFirst);
      expect((r.json as Json).answers.q0.probabilities).toMatchObject({ billing: 1.7 });
    });
    await withServer(always({ kind: "out-of-range", value: -0.2 }), async (h) => {
      const r = await post(h, noulFirst);
      expect((r.json as Json).answers.q1.noul).toBe(-0.2);
    });
  });

  it("removes the first question's answer and keeps the others", async () => {
    await withServer(always({ kind: "missing-answer" }), async (h) => {
      const answers = (await post(h, choiceFirst)).json as Json;
      expect(Object.keys(answers.answers)).toEqual(["q1", "q2__0", "q2__1", "q2__ns", "q3"]);
    });
  });

  it("removes the first probability (or the noul field)", async () => {
    await withServer(always({ kind: "missing-probability" }), async (h) => {
      const a = ((await post(h, choiceFirst)).json as Json).answers.q0;
      expect(Object.keys(a.probabilities as object)).toEqual(["shipping", "not stated"]);
      const n = ((await post(h, noulFirst)).json as Json).answers.q1;
      expect(n).toEqual({ type: "noul" });
    });
  });

  it("writes the first probability as a string, or as a boolean", async () => {
    const clean = await withServer(
      { rules: [] },
      async (h) => ((await post(h, choiceFirst)).json as Json).answers.q0,
    );
    const billing = (clean.probabilities as Record<string, number>).billing;
    await withServer(always({ kind: "string-probability" }), async (h) => {
      const a = ((await post(h, choiceFirst)).json as Json).answers.q0;
      expect((a.probabilities as Record<string, unknown>).billing).toBe(String(billing));
    });
    await withServer(always({ kind: "boolean-probability" }), async (h) => {
      const a = ((await post(h, noulFirst)).json as Json).answers.q1;
      expect(a.noul).toBe(true);
    });
  });

  it("leaves a request that fails validation as its 422", async () => {
    await withServer(always({ kind: "nan" }), async (h) => {
      const r = await post(h, { model: "lexical", state: "x", questions: {} });
      expect(r.status).toBe(422);
    });
  });
});

describe("fault rules", () => {
  it("numbers POST /v1/decision requests only, from 1", async () => {
    const plan: FaultPlan = { rules: [{ on: [2, 4], fault: { kind: "status", status: 503 } }] };
    await withServer(plan, async (h) => {
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++) {
        await get(h, "/health");
        await get(h, "/v1/models");
        statuses.push((await post(h, sampleRequest())).status);
      }
      expect(statuses).toEqual([200, 503, 200, 503, 200]);
      expect(h.requests).toHaveLength(5);
    });
  });

  it("tries rules in order: the first that applies wins", async () => {
    const plan: FaultPlan = {
      rules: [
        { on: [1], fault: { kind: "status", status: 500 } },
        { fault: { kind: "status", status: 409 } },
      ],
    };
    await withServer(plan, async (h) => {
      expect((await post(h, sampleRequest())).status).toBe(500);
      expect((await post(h, sampleRequest())).status).toBe(409);
    });
  });

  it("draws `rate` faults from a seeded generator: the same seed gives the same sequence", async () => {
    const run = (seed: number) =>
      withServer({ seed, rules: [{ rate: 0.5, fault: { kind: "status", status: 503 } }] }, async (h) => {
        const out: number[] = [];
        for (let i = 0; i < 24; i++) out.push((await post(h, sampleRequest())).status);
        return out;
      });
    const a = await run(42);
    const b = await run(42);
    const c = await run(7);
    expect(a).toEqual(b);
    expect(a).toContain(503);
    expect(a).toContain(200);
    expect(c).not.toEqual(a);
  });

  it("numbers requests without keeping them when record is false", async () => {
    const handle = await startDecisionServer({
      port: 0,
      checkpoints: false,
      record: false,
      faults: { rules: [{ on: [2], fault: { kind: "status", status: 500 } }] },
    });
    try {
      expect((await post(handle, sampleRequest())).status).toBe(200);
      expect((await post(handle, sampleRequest())).status).toBe(500);
      expect(handle.requests).toEqual([]);
    } finally {
      await handle.close();
    }
  });

  it("records each request's headers and raw body", async () => {
    await withServer({ rules: [] }, async (h) => {
      const body = JSON.stringify(sampleRequest());
      const sent = performance.timeOrigin + performance.now();
      await post(h, body, { "x-trace": "abc" });
      expect(h.requests[0].body).toBe(body);
      expect(h.requests[0].headers["x-trace"]).toBe("abc");
      expect(typeof h.requests[0].at).toBe("number");
      expect(h.requests[0].answeredAt).toBeGreaterThan(sent);
      expect(h.requests[0].answeredAt).toBeLessThanOrEqual(performance.timeOrigin + performance.now());
    });
  });

  it("leaves answeredAt unset for a response never sent whole", async () => {
    await withServer(
      {
        rules: [
          { on: [1], fault: { kind: "reset" } },
          { on: [2], fault: { kind: "truncate" } },
        ],
      },
      async (h) => {
        await expect(post(h, sampleRequest())).rejects.toThrow();
        expect((await rawPost(h, JSON.stringify(sampleRequest()))).broken).toBe(true);
        expect((await post(h, sampleRequest())).status).toBe(200);
        expect(h.requests.map((r) => r.answeredAt === undefined)).toEqual([true, true, false]);
      },
    );
  });
});

describe("fault plan validation", () => {
  it.each([
    [{ rules: [{ fault: { kind: "explode" } }] }, /rules\[0\]\.fault\.kind must be one of status, gateway/],
    [
      { rules: [{ fault: { kind: "status", status: 99 } }] },
      /rules\[0\]\.fault\.status must be an HTTP status/,
    ],
    [{ rules: [{ rate: 2, fault: { kind: "reset" } }] }, /rules\[0\]\.rate must be a number between 0 and 1/],
    [{ rules: [{ on: [0], fault: { kind: "reset" } }] }, /rules\[0\]\.on must be a list of request numbers/],
    [{ rules: [{ fault: { kind: "gateway", status: 400 } }] }, /rules\[0\]\.fault\.raw must be a string/],
    [{ rules: [{ fault: { kind: "delay" } }] }, /rules\[0\]\.fault\.ms must be a non-negative number/],
    [{ seed: 1.5, rules: [] }, /seed must be an integer/],
    [{ faults: [] }, /expected an object \{"seed"\?: number, "rules"/],
  ])("rejects %j", (plan, message) => {
    expect(() => validateFaultPlan(plan)).toThrow(FaultPlanError);
    expect(() => validateFaultPlan(plan)).toThrow(message);
  });

  it("parses a plan file's text and reports bad JSON", () => {
    expect(parseFaultPlan('{"seed": 3, "rules": [{"on": [1], "fault": {"kind": "reset"}}]}')).toEqual({
      seed: 3,
      rules: [{ on: [1], fault: { kind: "reset" } }],
    });
    expect(() => parseFaultPlan("{rules")).toThrow(/invalid fault plan: not valid JSON/);
  });

  it("refuses to start with an invalid plan", async () => {
    await expect(
      startDecisionServer({
        port: 0,
        checkpoints: false,
        faults: { rules: [{ fault: { kind: "nope" } }] } as never,
      }),
    ).rejects.toThrow(FaultPlanError);
  });
});
