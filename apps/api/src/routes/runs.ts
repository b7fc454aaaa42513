/** /api/runs: start, list, rename, follow (SSE), cancel, resume, delete and replay runs. */

import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { Type } from "typebox";
import { badRequest, notFound } from "../errors.js";
import { errorResponses, IdParams, NoContent } from "../shapes/common.js";
import {
  EventsQuery,
  ReplayResult,
  ResumeInput,
  RUN_NAME_MAX,
  RUN_NOTE_MAX,
  RunEstimate,
  RunInput,
  RunPatchInput,
  RunSummary,
  RunsQuery,
} from "../shapes/runs.js";
import type { AppContext } from "./context.js";
import { streamRun } from "./sse.js";

const tags = ["runs"];

/** Control characters and line separators: none may be in a name. */
const CONTROL = /[\p{Cc}\u2028\u2029]/u;
/** Control characters other than tab, line feed and carriage return: none may be in a note. */
const NOTE_CONTROL = /[^\P{Cc}\t\n\r]/u;

/** Characters (code points, so an emoji counts once) of a text. */
const length = (text: string) => [...text].length;

/**
 * A run's name and note as given (absent: unchanged, null: none), trimmed; a note of white space only is none.
 * Throws a 400 naming every problem (details: `{field, message}` each) when one is wrong.
 */
function runLabels(body: RunPatchInput): RunPatchInput {
  const out: RunPatchInput = {};
  const problems: { field: "name" | "note"; message: string }[] = [];
  if (typeof body.name === "string") {
    const name = body.name.trim();
    if (CONTROL.test(name)) {
      problems.push({
        field: "name",
        message: "name must be one line of text without tabs, line breaks or other control characters",
      });
    } else if (name === "") {
      problems.push({
        field: "name",
        message: `name is empty; give 1 to ${RUN_NAME_MAX} characters, or null to remove the name`,
      });
    } else if (length(name) > RUN_NAME_MAX) {
      problems.push({
        field: "name",
        message: `name has ${length(name)} characters; give at most ${RUN_NAME_MAX} (put more in the note)`,
      });
    } else out.name = name;
  } else if (body.name === null) out.name = null;
  if (typeof body.note === "string") {
    const note = body.note.trim();
    if (NOTE_CONTROL.test(note)) {
      problems.push({
        field: "note",
        message: "note must be text: tabs and line breaks are fine, other control characters are not",
      });
    } else if (length(note) > RUN_NOTE_MAX) {
      problems.push({
        field: "note",
        message: `note has ${length(note).toLocaleString("en")} characters; give at most ${RUN_NOTE_MAX.toLocaleString("en")}`,
      });
    } else out.note = note === "" ? null : note;
  } else if (body.note === null) out.note = null;
  if (problems.length) {
    throw badRequest(
      problems.map((p) => p.message).join("; "),
      problems.map((p) => ({ ...p })),
    );
  }
  return out;
}

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
    async (req, reply) =>
      reply.code(201).send(await engine.create({ ...req.body, ...runLabels(req.body) }, req.actor)),
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

  app.patch(
    "/api/runs/:id",
    {
      schema: {
        tags,
        summary: "Rename a run or change its note (null removes either; an absent field stays as it is)",
        body: RunPatchInput,
        ...one,
      },
    },
    async (req) => {
      const patch = runLabels(req.body);
      const { id } = req.params;
      if (!(await ctx.storage.getStoredRun(id)))
        throw notFound("run", id, "list the runs with GET /api/runs");
      await ctx.storage.updateRun(id, patch);
      return engine.summary(id);
    },
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
