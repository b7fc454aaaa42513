/**
 * Multipart uploads through @fastify/multipart (busboy, streaming): fields `task`, `format` and `file` (or
 * `content`) are read part by part and their bytes handed to the upload thread as they arrive; nothing is
 * decoded or gathered on the event loop. Every part is read as bytes, file or not, so the thread can check
 * that the text is UTF-8 and name the line of a bad byte.
 */

import type { FastifyMultipartBaseOptions } from "@fastify/multipart";
import type { FastifyRequest } from "fastify";
import { FORM_FIELDS } from "../catalog/upload-input.js";
import { UPLOAD_LIMIT, uploadTooLarge } from "../catalog/upload-limits.js";
import type { UploadJob, UploadJobs } from "../catalog/upload-thread.js";
import { ApiError } from "../errors.js";

/** The plugin's options for uploads: every part is a byte stream, none larger than the upload limit. */
export const multipartOptions: FastifyMultipartBaseOptions = {
  isPartAFile: () => true,
  limits: { fileSize: UPLOAD_LIMIT, parts: 2 * FORM_FIELDS.length, headerPairs: 100 },
};

function formError(message: string): ApiError {
  return new ApiError(400, "invalid_multipart", message);
}

/** busboy's and the plugin's failures as the API's errors. */
function asApiError(err: unknown): unknown {
  if (err instanceof ApiError) return err;
  const e = err as { code?: string; message?: string };
  if (e.code === "FST_REQ_FILE_TOO_LARGE") return uploadTooLarge();
  if (e.code === "FST_PARTS_LIMIT")
    return formError(`the form has too many parts; send ${FORM_FIELDS.join(", ")} once each`);
  if (e.code === "FST_PROTO_VIOLATION") return formError("a form field is named after an object property");
  return formError(`the multipart body could not be read (${e.message ?? "malformed"}); check its boundary`);
}

/** Reads the form of a multipart upload into a new upload thread, which it returns ready to finish. */
export async function receiveForm(req: FastifyRequest, jobs: UploadJobs): Promise<UploadJob> {
  let job: UploadJob | undefined;
  let received = 0;
  try {
    for await (const part of req.parts()) {
      const name = part.fieldname;
      if (!(FORM_FIELDS as readonly string[]).includes(name)) {
        throw formError(`unknown form field "${name}"; send ${FORM_FIELDS.join(", ")}`);
      }
      job ??= jobs.start();
      job.field(name, part.type === "file" && part.filename ? { filename: part.filename } : {});
      if (part.type !== "file") continue; // never: every part is read as a file (multipartOptions)
      for await (const chunk of part.file as AsyncIterable<Buffer>) {
        received += chunk.length;
        if (received > UPLOAD_LIMIT) throw uploadTooLarge();
        if (!job.write(chunk)) await job.drained(); // the thread is behind: read on once it has caught up
      }
      if (part.file.truncated) throw uploadTooLarge();
    }
  } catch (err) {
    void job?.abort();
    throw asApiError(err);
  }
  return job ?? jobs.start();
}
