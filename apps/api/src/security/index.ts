/**
 * The workbench's defences, registered before any route: canonical paths (see canonical-path.ts, used as
 * Fastify's rewriteUrl), the Host allow-list, the bearer tokens, the cross-site refusal and security headers.
 */

import type { FastifyInstance } from "fastify";
import { tokenlessHost } from "../config.js";
import type { WorkbenchStorage } from "../storage/types.js";
import { refuseCrossSite } from "./cross-site.js";
import { securityHeaders } from "./headers.js";
import { allowedHosts, requireAllowedHost } from "./hosts.js";
import { requireToken } from "./token.js";

export { canonicalUrl, isApiPath } from "./canonical-path.js";
export { docsCsp } from "./headers.js";

/** What the defences need to know. */
export interface SecurityOptions {
  token?: string | null;
  /** Where the people's tokens are (read on every request). */
  storage: WorkbenchStorage;
  boundHost?: string;
  allowHosts?: readonly string[];
}

/** Registers the defences in the order they answer: 421 (Host), 401 (token), 403 (cross-site); headers on all. */
export async function registerSecurity(app: FastifyInstance, opts: SecurityOptions): Promise<void> {
  await securityHeaders(app);
  requireAllowedHost(app, allowedHosts(opts.boundHost, opts.allowHosts));
  // beyond 127.0.0.1 a token is always needed, even once every person's token is revoked
  const exposed = opts.boundHost !== undefined && !tokenlessHost(opts.boundHost);
  requireToken(app, opts.token || null, opts.storage, exposed);
  refuseCrossSite(app);
}
