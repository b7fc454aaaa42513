/**
 * Cross-site defence for state-changing requests (POST, PUT, PATCH, DELETE): a request whose `Origin` is
 * present and not the workbench's own is refused, and the request must be one a page of another site cannot
 * send without a CORS preflight (which the workbench never grants). PUT, PATCH and DELETE always are; a POST must
 * carry a JSON body or the `X-Workbench` header that the web app sends on every call. A plain HTML form, a
 * multipart post or a bodiless `fetch` from another site carries neither.
 */

import type { FastifyInstance, FastifyRequest } from "fastify";
import { ApiError } from "../errors.js";

/** The header that makes a bodiless or multipart request non-simple. */
const CLIENT_HEADER = "x-workbench";

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

function isJson(contentType: string | undefined): boolean {
  const media = (contentType ?? "").split(";")[0].trim().toLowerCase();
  return media === "application/json" || /^application\/[a-z0-9.+-]+\+json$/.test(media);
}

/** The `host[:port]` of an Origin header, or undefined when it is `null` or not an origin. */
function originHost(origin: string): string | undefined {
  try {
    const u = new URL(origin);
    return u.protocol === "http:" || u.protocol === "https:" ? u.host.toLowerCase() : undefined;
  } catch {
    return undefined;
  }
}

/** Why a state-changing request is refused, or undefined when it may go on (its Host already allowed: hosts.ts). */
function crossSiteRefusal(req: FastifyRequest): string | undefined {
  if (SAFE_METHODS.has(req.method)) return undefined;
  const origin = req.headers.origin;
  if (origin !== undefined) {
    const from = originHost(origin);
    const own = (req.headers.host ?? "").trim().toLowerCase();
    if (from === undefined || from !== own) {
      return `a ${req.method} from another site (Origin ${JSON.stringify(origin.slice(0, 100))}) is refused: state-changing requests are accepted only from the workbench's own pages or from clients that send no Origin`;
    }
  } else if (req.headers["sec-fetch-site"] === "cross-site") {
    return `a ${req.method} from another site (Sec-Fetch-Site: cross-site) is refused: state-changing requests are accepted only from the workbench's own pages`;
  }
  // PUT, PATCH and DELETE are never simple: another site's page cannot send them without a preflight.
  if (req.method !== "POST") return undefined;
  if (isJson(req.headers["content-type"]) || req.headers[CLIENT_HEADER] !== undefined) return undefined;
  return `a POST must send a JSON body (Content-Type: application/json) or the header "X-Workbench: 1" (uploads as multipart/form-data and requests without a body need the header); a form or a simple request from another site could send neither`;
}

/** Refuses (403 cross_site_refused) state-changing requests that another site's page could have sent. */
export function refuseCrossSite(app: FastifyInstance): void {
  app.addHook("onRequest", async (req) => {
    const refusal = crossSiteRefusal(req);
    if (refusal) throw new ApiError(403, "cross_site_refused", refusal);
  });
}
