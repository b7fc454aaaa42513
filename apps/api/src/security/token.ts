/**
 * The bearer tokens of a shared workbench: the single `--token` (one-person setups) and the people's own tokens
 * (person-tokens.ts), looked up by hash in the storage on every request, so a token revoked through any API
 * instance or `workbench tokens revoke` is refused at once by every instance on the same database. A token is
 * needed when `--token` is set or any person's token is active. The request's actor is the person's name (null
 * for the shared token or when no token is needed).
 *
 * The decision is made on the route the router matched, never on the raw URL: a percent-encoded, doubled-slash or
 * dot-segment path reaches the same route and the same check. Everything needs the token but `/health` and the
 * web app's own files (its static files and the page served for its client-side routes); a request that matches
 * no route needs it too, so an unknown path reveals nothing.
 */

import { createHash, timingSafeEqual } from "node:crypto";
import type { FastifyInstance, FastifyRequest } from "fastify";
import { ApiError } from "../errors.js";
import type { WorkbenchStorage } from "../storage/types.js";
import { isApiPath } from "./canonical-path.js";
import { hashToken } from "./person-tokens.js";

declare module "fastify" {
  interface FastifyRequest {
    /** Who sent the request: the name of the person whose token it carries, else null. */
    actor: string | null;
  }
}

/** The only route that takes the token as `?token=` (EventSource cannot send headers). */
const EVENTS_ROUTE = "/api/runs/:id/events";

/** The routes every caller may reach. */
const PUBLIC_ROUTES = new Set(["/health"]);

const SEND =
  "send the header 'Authorization: Bearer <token>' with the token the workbench was started with (--token or WORKBENCH_TOKEN) or your own (workbench tokens create --name <you>)";

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

/**
 * Requires a token on every request but the public ones when `shared` is set, a person's token is active, or
 * `always` (a workbench bound beyond 127.0.0.1): the shared one (constant-time comparison of digests) or an
 * active person's (by its hash). Sets `req.actor`.
 */
export function requireToken(
  app: FastifyInstance,
  shared: string | null,
  storage: WorkbenchStorage,
  always = false,
): void {
  const expected = shared ? digest(shared) : undefined;
  app.decorateRequest("actor", null);
  app.addHook("onRequest", async (req) => {
    if (isPublic(req)) return;
    const given = tokenOf(req);
    if (given !== undefined) {
      if (expected && timingSafeEqual(digest(given), expected)) return;
      const person = await storage.tokenByHash(hashToken(given));
      if (person) {
        req.actor = person.name;
        return;
      }
    }
    if (!always && !expected && !(await storage.hasActiveTokens())) return;
    throw new ApiError(
      401,
      "unauthorized",
      given === undefined
        ? `this workbench needs a bearer token: ${SEND}`
        : `the bearer token is wrong or revoked: ${SEND}`,
    );
  });
}
