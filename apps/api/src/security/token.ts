/**
 * The bearer token of a shared workbench. The decision is made on the route the router matched, never on the
 * raw URL: a percent-encoded, doubled-slash or dot-segment path reaches the same route and the same check.
 * Everything needs the token but `/health` and the web app's own files (its static files and the page served
 * for its client-side routes); a request that matches no route needs it too, so an unknown path reveals nothing.
 */

import { createHash, timingSafeEqual } from "node:crypto";
import type { FastifyInstance, FastifyRequest } from "fastify";
import { ApiError } from "../errors.js";
import { isApiPath } from "./canonical-path.js";

/** The only route that takes the token as `?token=` (EventSource cannot send headers). */
const EVENTS_ROUTE = "/api/runs/:id/events";

/** The routes every caller may reach. */
const PUBLIC_ROUTES = new Set(["/health"]);

function digest(text: string): Buffer {
  return createHash("sha256").update(text).digest();
}

/** Whether the request may go without the token: `/health`, or a GET/HEAD of the web app's files. */
function isPublic(req: FastifyRequest): boolean {
  const route = req.routeOptions.url;
  if (route !== undefined && PUBLIC_ROUTES.has(route)) return true;
  if (req.method !== "GET" && req.method !== "HEAD") return false;
  // The static files' wildcard, or no route at all (the web app's client-side routes): public unless the
  // decoded path is the API's or the documentation's.
  return (route === undefined || route === "/*") && !isApiPath(req.url);
}

function tokenOf(req: FastifyRequest): string | undefined {
  const header = req.headers.authorization;
  if (typeof header === "string" && /^Bearer /i.test(header)) return header.slice(7).trim();
  if (req.method === "GET" && req.routeOptions.url === EVENTS_ROUTE) {
    const q = req.url.indexOf("?");
    return q < 0 ? undefined : (new URLSearchParams(req.url.slice(q + 1)).get("token") ?? undefined);
  }
  return undefined;
}

/** Requires the token (constant-time comparison of digests) on every request but the public ones. */
export function requireToken(app: FastifyInstance, token: string): void {
  const expected = digest(token);
  app.addHook("onRequest", async (req) => {
    if (isPublic(req)) return;
    const given = tokenOf(req);
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
