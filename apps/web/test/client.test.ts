import { afterEach, describe, expect, it, vi } from "vitest";
import { ApiError, api, query } from "../src/api/client";

afterEach(() => {
  vi.unstubAllGlobals();
});

function respond(status: number, body: string, statusText = "") {
  const fetch = vi.fn(async () => new Response(body, { status, statusText }));
  vi.stubGlobal("fetch", fetch);
  return fetch;
}

describe("api", () => {
  it("sends JSON under /api and parses the reply", async () => {
    const fetch = respond(201, '{"id":"srv_1"}');
    await expect(api("/servers", { method: "POST", body: { name: "x" } })).resolves.toEqual({ id: "srv_1" });
    const [url, init] = fetch.mock.calls[0] as unknown as [string, RequestInit];
    expect(url).toBe("/api/servers");
    expect(init.method).toBe("POST");
    expect(init.body).toBe('{"name":"x"}');
    expect((init.headers as Record<string, string>)["content-type"]).toBe("application/json");
  });

  it("sends X-Workbench on every call (a bodiless POST included) and the token only in a header", async () => {
    const fetch = respond(200, "{}");
    sessionStorage.setItem("workbench-token", "team-token-0123456789");
    try {
      await api("/runs/run_1/cancel", { method: "POST" });
    } finally {
      sessionStorage.removeItem("workbench-token");
    }
    const [url, init] = fetch.mock.calls[0] as unknown as [string, RequestInit];
    const headers = init.headers as Record<string, string>;
    expect(headers["x-workbench"]).toBe("1");
    expect(headers.authorization).toBe("Bearer team-token-0123456789");
    expect(init.body).toBeUndefined();
    expect(url).toBe("/api/runs/run_1/cancel");
  });

  it("turns the API's error body into an ApiError with its message as is", async () => {
    respond(
      400,
      JSON.stringify({
        error: {
          code: "invalid_dataset",
          message: "2 lines have errors",
          details: [{ line: 3, message: "bad" }],
        },
      }),
    );
    const err = (await api("/datasets").catch((e) => e)) as ApiError;
    expect(err).toBeInstanceOf(ApiError);
    expect(err.message).toBe("2 lines have errors");
    expect(err.code).toBe("invalid_dataset");
    expect(err.status).toBe(400);
    expect(err.details).toEqual([{ line: 3, message: "bad" }]);
  });

  it("falls back to the status line when the body is not the API's error", async () => {
    respond(502, "<html>bad gateway</html>", "Bad Gateway");
    const err = (await api("/runs").catch((e) => e)) as ApiError;
    expect(err.message).toBe("HTTP 502 Bad Gateway: <html>bad gateway</html>");
    expect(err.code).toBe("http_error");
  });

  it("explains an unreachable API", async () => {
    vi.stubGlobal(
      "fetch",
      vi.fn(async () => Promise.reject(new TypeError("Failed to fetch"))),
    );
    const err = (await api("/runs").catch((e) => e)) as ApiError;
    expect(err.status).toBe(0);
    expect(err.message).toMatch(/Could not reach the workbench API \(Failed to fetch\)/);
  });

  it("resolves undefined for 204", async () => {
    respond(204, "");
    await expect(api("/runs/x", { method: "DELETE" })).resolves.toBeUndefined();
  });
});

describe("query", () => {
  it("keeps defined values only", () => {
    expect(query({ a: 1, b: undefined, c: "", d: "x y", e: false })).toBe("?a=1&d=x+y&e=false");
    expect(query({})).toBe("");
  });
});
