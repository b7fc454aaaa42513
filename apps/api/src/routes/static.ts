/** Serves the built web app (apps/web/dist) with a fallback to index.html for client-side routes. */

import fastifyStatic from "@fastify/static";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { isApiPath } from "../security/index.js";

/** Registers the static files; returns the SPA fallback for GET requests outside /api and /docs. */
export async function serveWebApp(
  app: FastifyInstance,
  webDir: string,
): Promise<(req: FastifyRequest, reply: FastifyReply) => FastifyReply | undefined> {
  await app.register(fastifyStatic, { root: webDir, prefix: "/", wildcard: true, index: ["index.html"] });
  return (req, reply) => {
    const path = req.url.split("?")[0];
    if (req.method !== "GET" && req.method !== "HEAD") return undefined;
    if (isApiPath(path)) return undefined;
    if (/\.[A-Za-z0-9]+$/.test(path)) return undefined; // a missing file, not a client-side route
    return reply.type("text/html; charset=utf-8").sendFile("index.html");
  };
}
