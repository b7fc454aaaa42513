/** buildApp: the Fastify app of the workbench (routes, schemas, errors, token, OpenAPI, the web app). */

import swagger from "@fastify/swagger";
import swaggerUi from "@fastify/swagger-ui";
import Fastify, { type FastifyInstance, type FastifyServerOptions } from "fastify";
import type { RunEngine } from "./engine/engine.js";
import { errorHandler, notFoundHandler } from "./errors.js";
import { analysisRoutes } from "./routes/analysis/index.js";
import { datasetRoutes } from "./routes/datasets.js";
import { runRoutes } from "./routes/runs.js";
import { serverRoutes } from "./routes/servers.js";
import { closeEventStreams } from "./routes/sse.js";
import { serveWebApp } from "./routes/static.js";
import type { SecretBox } from "./secrets/box.js";
import { canonicalUrl, docsCsp, registerSecurity } from "./security/index.js";
import type { WorkbenchStorage } from "./storage/types.js";
import { validators } from "./validators.js";

/** Largest JSON body of every route but dataset uploads. */
export const BODY_LIMIT = 1024 * 1024;

/** What buildApp needs. */
export interface AppOptions {
  storage: WorkbenchStorage;
  engine: RunEngine;
  secrets: SecretBox;
  /**
   * When set, every /api request needs `Authorization: Bearer <token>`: this one or a person's (security/token.ts),
   * as it does when any person's token is active.
   */
  token?: string | null;
  /** Host names the API answers to beyond the bound address and the loopback names (`--allow-host`). */
  allowHosts?: string[];
  /** The address the API is bound to, when not loopback: it is an allowed Host too. */
  boundHost?: string;
  /** The built web app to serve at `/` (apps/web/dist), when it exists. */
  webDir?: string;
  /** Fastify's logger option (default: off). Logged requests never carry a query string or headers. */
  logger?: FastifyServerOptions["logger"];
}

/** How a request is logged: method, path without its query (an event stream's may hold the token), address. */
const requestSerializer = (req: { method: string; url: string; ip?: string }) => ({
  method: req.method,
  url: req.url.split("?")[0],
  remoteAddress: req.ip,
});

function loggerOption(logger: AppOptions["logger"]): FastifyServerOptions["logger"] {
  if (!logger || logger === true) return logger ? { serializers: { req: requestSerializer } } : false;
  return { ...logger, serializers: { ...logger.serializers, req: requestSerializer } };
}

/** Builds the workbench app (not listening yet). */
export async function buildApp(opts: AppOptions): Promise<FastifyInstance> {
  const app = Fastify({
    logger: loggerOption(opts.logger),
    bodyLimit: BODY_LIMIT,
    forceCloseConnections: true,
    return503OnClosing: false,
    routerOptions: { maxParamLength: 1000, caseSensitive: false },
    // Every access decision is made on the route matched from the canonical path (security/canonical-path.ts).
    rewriteUrl: (req) => canonicalUrl(req.url ?? "/"),
    // Router-level failures (a path parameter too long, a malformed URL) get the same error shape.
    frameworkErrors: (error, req, reply) => errorHandler(error, req, reply),
  });
  const ajv = validators();
  app.setValidatorCompiler(({ schema, httpPart }) =>
    (httpPart === "body" ? ajv.body : ajv.other).compile(schema),
  );
  app.removeContentTypeParser("text/plain");
  app.setErrorHandler(errorHandler);
  app.addHook("onClose", async () => closeEventStreams());

  await app.register(swagger, {
    openapi: {
      info: {
        title: "Decision workbench API",
        version: "0.1.0",
        description:
          "Servers, datasets, runs, reports, calibrations, compare and exports. See apps/api/API.md.",
      },
      components: { securitySchemes: { bearer: { type: "http", scheme: "bearer" } } },
    },
  });
  await registerSecurity(app, {
    token: opts.token,
    storage: opts.storage,
    boundHost: opts.boundHost,
    allowHosts: opts.allowHosts,
  });
  await app.register(swaggerUi, { routePrefix: "/docs", staticCSP: true, transformStaticCSP: docsCsp });
  app.get("/health", { schema: { hide: true } }, async () => ({ ok: true }));

  const ctx = {
    storage: opts.storage,
    engine: opts.engine,
    secrets: opts.secrets,
    // One policy for the runs and the API's own requests (checks, registration): the engine's.
    outbound: opts.engine.outbound,
  };
  await app.register(serverRoutes, { ctx });
  await app.register(datasetRoutes, { ctx });
  await app.register(runRoutes, { ctx });

  // The analysis half (reports, items, calibrations, compare, exports) lives in routes/analysis/.
  await app.register(analysisRoutes, { storage: opts.storage });

  const fallback = opts.webDir ? await serveWebApp(app, opts.webDir) : undefined;
  app.setNotFoundHandler((req, reply) => fallback?.(req, reply) ?? notFoundHandler(req, reply));
  return app;
}
