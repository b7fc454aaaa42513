/** /api/runs: start, list, follow (SSE), cancel, resume, delete and replay runs. */

import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { Type } from "typebox";
import { errorResponses, IdParams, NoContent } from "../shapes/common.js";
import {
  EventsQuery,
  ReplayResult,
  ResumeInput,
  RunEstimate,
  RunInput,
  RunSummary,
  RunsQuery,
} from "../shapes/runs.js";
import type { AppContext } from "./context.js";
import { streamRun } from "./sse.js";

const tags = ["runs"];

/** The runs routes. */
export const runRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  const { engine } = ctx;
  const one = { params: IdParams, response: { 200: RunSummary, ...errorResponses } };

  app.post(
    "/api/runs",
    {
      schema: {
        tags,
        summary: "Start a run (one request per example, all of its items)",
        body: RunInput,
        response: { 201: RunSummary, ...errorResponses },
      },
    },
    async (req, reply) => reply.code(201).send(await engine.create(req.body, req.actor)),
  );

  app.post(
    "/api/runs/estimate",
    {
      schema: {
        tags,
        summary: "Estimate a run before it starts: examples, input and output tokens, cost (nothing is sent)",
        body: RunInput,
        response: { 200: RunEstimate, ...errorResponses },
      },
    },
    async (req) => engine.estimate(req.body),
  );

  app.get(
    "/api/runs",
    {
      schema: {
        tags,
        summary: "List runs, newest first",
        querystring: RunsQuery,
        response: { 200: Type.Array(RunSummary), ...errorResponses },
      },
    },
    async (req) => engine.list(req.query),
  );

  app.get("/api/runs/:id", { schema: { tags, summary: "One run", ...one } }, async (req) =>
    engine.summary(req.params.id),
  );

  app.post(
    "/api/runs/:id/cancel",
    { schema: { tags, summary: "Cancel a run (answers in flight are still stored)", ...one } },
    async (req) => engine.cancel(req.params.id),
  );

  app.post(
    "/api/runs/:id/resume",
    {
      schema: {
        tags,
        summary: "Resume a cancelled, failed, stopped or interrupted run (optionally with new caps)",
        body: ResumeInput,
        ...one,
      },
    },
    async (req) => engine.resume(req.params.id, req.body ?? {}),
  );

  app.delete(
    "/api/runs/:id",
    {
      schema: {
        tags,
        summary: "Delete a run, its predictions and calibrations",
        params: IdParams,
        response: { 204: NoContent, ...errorResponses },
      },
    },
    async (req, reply) => {
      await engine.delete(req.params.id);
      return reply.code(204).send(null);
    },
  );

  app.post(
    "/api/runs/:id/replay",
    {
      schema: {
        tags,
        summary: "Re-check a run: recorded outputs, or new requests for a deterministic server",
        params: IdParams,
        response: { 200: ReplayResult, ...errorResponses },
      },
    },
    async (req) => engine.replay(req.params.id),
  );

  app.get(
    "/api/runs/:id/events",
    {
      schema: {
        tags,
        summary: "Server-Sent Events: progress (at most ~5 a second), then done with the final summary",
        params: IdParams,
        querystring: EventsQuery,
        response: {
          200: {
            description: "text/event-stream: `progress` events (Progress), then `done` (RunSummary)",
            content: { "text/event-stream": { schema: Type.String() } },
          },
          ...errorResponses,
        },
      },
    },
    async (req, reply) => {
      const summary = await engine.summary(req.params.id);
      reply.hijack();
      streamRun(engine, summary, reply.raw, (cleanup) => reply.raw.on("close", cleanup));
    },
  );
};
