/** The optional bearer token: every /api request must carry it when the workbench was started with one. */

import { createHash, timingSafeEqual } from "node:crypto";
import type { FastifyInstance } from "fastify";
import { ApiError } from "../errors.js";

function digest(text: string): Buffer {
  return createHash("sha256").update(text).digest();
}

/** Adds the token check to /api routes (EventSource streams may pass it as `?token=`). */
export function requireToken(app: FastifyInstance, token: string): void {
  const expected = digest(token);
  app.addHook("onRequest", async (req) => {
    const path = req.url.split("?")[0];
    if (!path.startsWith("/api/") && path !== "/api") return;
    const header = req.headers.authorization;
    let given: string | undefined;
    if (typeof header === "string" && /^Bearer /i.test(header)) given = header.slice(7).trim();
    else if (req.method === "GET" && path.endsWith("/events")) {
      given = new URLSearchParams(req.url.slice(path.length + 1)).get("token") ?? undefined;
    }
    if (given === undefined || !timingSafeEqual(digest(given), expected)) {
      throw new ApiError(
        401,
        "unauthorized",
        given === undefined
          ? "this workbench needs a bearer token: send the header 'Authorization: Bearer <token>' with the token it was started with (--token or WORKBENCH_TOKEN)"
          : "the bearer token is wrong: send the token the workbench was started with (--token or WORKBENCH_TOKEN)",
      );
    }
  });
}
