/**
 * The workbench's defences, registered before any route: canonical paths (see canonical-path.ts, used as
 * Fastify's rewriteUrl), the Host allow-list, the bearer token, the cross-site refusal and security headers.
 */

import type { FastifyInstance } from "fastify";
import { refuseCrossSite } from "./cross-site.js";
import { securityHeaders } from "./headers.js";
import { allowedHosts, requireAllowedHost } from "./hosts.js";
import { requireToken } from "./token.js";

export { canonicalUrl, isApiPath } from "./canonical-path.js";
export { docsCsp } from "./headers.js";

/** What the defences need to know. */
export interface SecurityOptions {
  token?: string | null;
  boundHost?: string;
  allowHosts?: readonly string[];
}

/** Registers the defences in the order they answer: 421 (Host), 401 (token), 403 (cross-site); headers on all. */
export async function registerSecurity(app: FastifyInstance, opts: SecurityOptions): Promise<void> {
  await securityHeaders(app);
  requireAllowedHost(app, allowedHosts(opts.boundHost, opts.allowHosts));
  if (opts.token) requireToken(app, opts.token);
  refuseCrossSite(app);
}
