/** /api/runs: start, list, follow (SSE), cancel, resume, delete and replay runs. */

import type { FastifyPluginAsync } from "fastify";
import type { ResumeInput, RunInput } from "../engine/types.js";
import type { RunStatus } from "../storage/types.js";
import type { AppContext } from "./context.js";
import {
  errorResponses,
  idParams,
  replaySchema,
  resumeInputSchema,
  runEstimateSchema,
  runInputSchema,
  runSummarySchema,
} from "./schemas.js";
import { streamRun } from "./sse.js";

const tags = ["runs"];

const listQuery = {
  type: "object",
  properties: {
    dataset: { type: "string", minLength: 1, maxLength: 200 },
    status: { type: "string", enum: ["queued", "running", "done", "cancelled", "failed", "stopped"] },
  },
  additionalProperties: false,
} as const;

const eventsQuery = {
  type: "object",
  properties: { token: { type: "string", description: "the bearer token, for EventSource (no headers)" } },
  additionalProperties: false,
} as const;

/** The runs routes. */
export const runRoutes: FastifyPluginAsync<{ ctx: AppContext }> = async (app, { ctx }) => {
  const { engine } = ctx;
  const one = { params: idParams, response: { 200: runSummarySchema, ...errorResponses } };

  app.post<{ Body: RunInput }>(
    "/api/runs",
    {
      schema: {
        tags,
        summary: "Start a run (one request per example, all of its items)",
        body: runInputSchema,
        response: { 201: runSummarySchema, ...errorResponses },
      },
    },
    async (req, reply) => reply.code(201).send(await engine.create(req.body)),
  );

  app.post<{ Body: RunInput }>(
    "/api/runs/estimate",
    {
      schema: {
        tags,
        summary: "Estimate a run before it starts: examples, input and output tokens, cost (nothing is sent)",
        body: runInputSchema,
        response: { 200: runEstimateSchema, ...errorResponses },
      },
    },
    async (req) => engine.estimate(req.body),
  );

  app.get<{ Querystring: { dataset?: string; status?: RunStatus } }>(
    "/api/runs",
    {
      schema: {
        tags,
        summary: "List runs, newest first",
        querystring: listQuery,
        response: { 200: { type: "array", items: runSummarySchema }, ...errorResponses },
      },
    },
    async (req) => engine.list(req.query),
  );

  app.get<{ Params: { id: string } }>(
    "/api/runs/:id",
    { schema: { tags, summary: "One run", ...one } },
    async (req) => engine.summary(req.params.id),
  );

  app.post<{ Params: { id: string } }>(
    "/api/runs/:id/cancel",
    { schema: { tags, summary: "Cancel a run (answers in flight are still stored)", ...one } },
    async (req) => engine.cancel(req.params.id),
  );

  app.post<{ Params: { id: string }; Body: ResumeInput | null }>(
    "/api/runs/:id/resume",
    {
      schema: {
        tags,
        summary: "Resume a cancelled, failed, stopped or interrupted run (optionally with new caps)",
        body: resumeInputSchema,
        ...one,
      },
    },
    async (req) => engine.resume(req.params.id, req.body ?? {}),
  );

  app.delete<{ Params: { id: string } }>(
    "/api/runs/:id",
    {
      schema: {
        tags,
        summary: "Delete a run, its predictions and calibrations",
        params: idParams,
        response: { 204: { type: "null" }, ...errorResponses },
      },
    },
    async (req, reply) => {
      await engine.delete(req.params.id);
      return reply.code(204).send();
    },
  );

  app.post<{ Params: { id: string } }>(
    "/api/runs/:id/replay",
    {
      schema: {
        tags,
        summary: "Re-check a run: recorded outputs, or new requests for a deterministic server",
        params: idParams,
        response: { 200: replaySchema, ...errorResponses },
      },
    },
    async (req) => engine.replay(req.params.id),
  );

  app.get<{ Params: { id: string } }>(
    "/api/runs/:id/events",
    {
      schema: {
        tags,
        summary: "Server-Sent Events: progress (at most ~5 a second), then done with the final summary",
        params: idParams,
        querystring: eventsQuery,
        response: errorResponses,
      },
    },
    async (req, reply) => {
      const summary = await engine.summary(req.params.id);
      reply.hijack();
      streamRun(engine, summary, reply.raw, (cleanup) => reply.raw.on("close", cleanup));
    },
  );
};
