/**
 * POST /api/datasets: an upload as a JSON body or multipart/form-data, never parsed on the event loop. Its
 * bytes stream into an upload thread as they arrive (catalog/upload-thread.ts), which reads, validates, hashes
 * and stores the dataset. A Content-Length over UPLOAD_LIMIT is refused with 413 before the body is read (the
 * unread body is then discarded by Node, so the client can read the answer); a body without one is cut off
 * with 413 once it passes the limit.
 *
 * The JSON body is not parsed by Fastify's JSON parser: this route's parser hands the raw bytes to the thread,
 * which parses and checks them against `uploadSchema` (the schema documented here) with the app's messages.
 */

import multipart from "@fastify/multipart";
import type {
  FastifyPluginAsync,
  FastifyReply,
  FastifyRequest,
  onRequestHookHandler,
  onResponseHookHandler,
  onSendHookHandler,
} from "fastify";
import { uploadSummary } from "../catalog/catalog.js";
import { uploadSchema } from "../catalog/upload-input.js";
import {
  tooManyUploads,
  UPLOAD_LIMIT,
  UPLOAD_LIMIT_TEXT,
  UPLOAD_MAX_DEPTH,
  UPLOADS_AT_ONCE,
  uploadTooLarge,
} from "../catalog/upload-limits.js";
import { UploadJob, UploadJobs } from "../catalog/upload-thread.js";
import { ApiError, emptyJsonBody } from "../errors.js";
import { errorResponses } from "../shapes/common.js";
import { DatasetSummary } from "../shapes/datasets.js";
import type { AppContext } from "./context.js";
import { multipartOptions, receiveForm } from "./multipart.js";

/** 413 from the Content-Length header, before any of the body is read. */
const refuseLargeUpload: onRequestHookHandler = (req, _reply, done) => {
  const declared = Number(req.headers["content-length"]);
  done(declared > UPLOAD_LIMIT ? uploadTooLarge(declared) : undefined);
};

/**
 * At most UPLOADS_AT_ONCE uploads are received at once: a request takes a place before its body is read (503
 * too_many_uploads, with Retry-After, when none is free) and gives it back when it is answered or aborted.
 */
function uploadPlaces(): { take: onRequestHookHandler; give: (req: FastifyRequest) => void } {
  const holding = new Set<FastifyRequest>();
  return {
    take(req, reply, done) {
      if (holding.size >= UPLOADS_AT_ONCE) {
        reply.header("retry-after", "5");
        return done(tooManyUploads());
      }
      holding.add(req);
      done();
    },
    give: (req) => void holding.delete(req),
  };
}

/** A body without a Content-Length that ran past the limit: the connection is closed after the 413. */
const closeAfterCutOff: onSendHookHandler = (req, reply, payload, done) => {
  if (reply.statusCode === 413 && req.headers["content-length"] === undefined)
    reply.header("connection", "close");
  done(null, payload);
};

/** An upload thread a failed request left unfinished (the handler never ran) is ended with the request. */
const endLeftover: onResponseHookHandler = (req, _reply, done) => {
  if (req.body instanceof UploadJob) void req.body.abort();
  done();
};

/** A JSON body, streamed into an upload thread; the request's body becomes that UploadJob. */
function jsonIntoThread(jobs: UploadJobs) {
  return (
    req: FastifyRequest,
    payload: NodeJS.ReadableStream,
    done: (err: Error | null, body?: unknown) => void,
  ) => {
    let job: UploadJob | undefined;
    let received = 0;
    let over = false;
    const stop = () => {
      payload.removeListener("data", onData);
      payload.removeListener("end", onEnd);
      payload.removeListener("error", onError);
      payload.removeListener("close", onClose);
    };
    const fail = (err: Error) => {
      over = true;
      stop();
      void job?.abort();
      done(err);
    };
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      if (received > UPLOAD_LIMIT) return fail(uploadTooLarge());
      if (!job) {
        job = jobs.start();
        const size = Number(req.headers["content-length"]);
        job.field("body", Number.isSafeInteger(size) && size > 0 ? { size } : {});
      }
      // the thread is behind (starting, or slower than the client): the request waits for it
      if (!job.write(chunk)) {
        payload.pause();
        void job.drained().then(() => payload.resume());
      }
    };
    const onEnd = () => {
      stop();
      if (job) done(null, job);
      else done(emptyJsonBody());
    };
    const onError = (err: Error) => fail(err);
    const onClose = () => {
      if (!over)
        fail(new ApiError(400, "invalid_request", "the request was closed before its body was complete"));
    };
    payload.on("data", onData);
    payload.on("end", onEnd);
    payload.on("error", onError);
    payload.on("close", onClose);
  };
}

/** The upload route with its parsers (registered in a context of its own: other routes keep Fastify's). */
export const uploadRoute: FastifyPluginAsync<{ ctx: AppContext }> = async (app, { ctx }) => {
  const jobs = new UploadJobs(ctx.storage.database, (upload) => ctx.storage.abandonUpload(upload));
  const places = uploadPlaces();
  app.addHook("onClose", () => jobs.close());
  await app.register(multipart, multipartOptions);
  app.removeContentTypeParser("application/json");
  app.addContentTypeParser("application/json", jsonIntoThread(jobs));

  app.post(
    "/api/datasets",
    {
      bodyLimit: UPLOAD_LIMIT,
      onRequest: [refuseLargeUpload, places.take],
      onSend: closeAfterCutOff,
      onResponse: [
        endLeftover,
        (req, _reply, done) => {
          places.give(req);
          done();
        },
      ],
      onRequestAbort: (req, done) => {
        places.give(req);
        done();
      },
      // The body is checked against the schema on the upload thread (upload-input.ts), not here.
      validatorCompiler: () => () => true,
      schema: {
        tags: ["datasets"],
        summary: "Upload a dataset (JSON body, or multipart with task, format and file)",
        description: `At most ${UPLOAD_LIMIT_TEXT} in all (413 body_too_large, from the Content-Length before the body is read). JSONL lines and the task may nest objects and lists at most ${UPLOAD_MAX_DEPTH} levels deep. Parsed and stored off the event loop.`,
        consumes: ["application/json", "multipart/form-data"],
        body: uploadSchema,
        response: { 201: DatasetSummary, ...errorResponses },
      },
    },
    async (req: FastifyRequest, reply: FastifyReply) => {
      let job: UploadJob;
      let kind: "json" | "form";
      if (req.isMultipart()) {
        job = await receiveForm(req, jobs);
        kind = "form";
      } else if (req.body instanceof UploadJob) {
        job = req.body;
        kind = "json";
      } else {
        throw new ApiError(
          400,
          "invalid_request",
          "the upload has no body: send JSON {task, format, content} or multipart/form-data (task, format, file)",
        );
      }
      return reply.code(201).send(uploadSummary(await job.finish(kind, req.actor)));
    },
  );
};
