/**
 * Security headers on every response, through @fastify/helmet: a Content-Security-Policy that the web app passes
 * (its scripts, styles and requests are its own; images may be data: or blob: URLs), no framing, `nosniff`, no
 * referrer. No HSTS and no upgrade-insecure-requests: the workbench speaks plain HTTP (a team puts TLS in front),
 * and upgrading would break it when reached by address on a local network.
 */

import helmet from "@fastify/helmet";
import type { FastifyInstance } from "fastify";

/** The web app's Content-Security-Policy directives. */
const CSP_DIRECTIVES = {
  defaultSrc: ["'self'"],
  scriptSrc: ["'self'"],
  styleSrc: ["'self'"],
  imgSrc: ["'self'", "data:", "blob:"],
  fontSrc: ["'self'", "data:"],
  connectSrc: ["'self'"],
  objectSrc: ["'none'"],
  baseUri: ["'self'"],
  formAction: ["'self'"],
  frameAncestors: ["'none'"],
  upgradeInsecureRequests: null,
};

/** Registers the headers (global: helmet is wrapped with fastify-plugin). */
export async function securityHeaders(app: FastifyInstance): Promise<void> {
  await app.register(helmet, {
    contentSecurityPolicy: { useDefaults: false, directives: CSP_DIRECTIVES },
    frameguard: { action: "deny" },
    referrerPolicy: { policy: "no-referrer" },
    strictTransportSecurity: false,
    crossOriginEmbedderPolicy: false,
  });
}

/**
 * Swagger UI's own policy (it needs the hashes of its inline scripts, which @fastify/swagger-ui computes), made as
 * strict as the app's: no framing, no upgrade of plain HTTP.
 */
export function docsCsp(header: string): string {
  return header
    .replace(/frame-ancestors [^;]*;/, "frame-ancestors 'none';")
    .replace(/\s*upgrade-insecure-requests;?/, "")
    .replace(/ validator\.swagger\.io/, "");
}
