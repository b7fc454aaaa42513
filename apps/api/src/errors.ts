/** API errors: a class with a status and a code, and the handlers that turn every failure into the error shape. */

import type { ErrorObject } from "ajv";
import type { FastifyError, FastifyReply, FastifyRequest } from "fastify";

import type { ErrorBody } from "./shapes/common.js";

/** One detail of an error (for instance a dataset validation error with its line). */
export type ErrorDetail = NonNullable<ErrorBody["error"]["details"]>[number];

/** An error the API answers with: HTTP status, a stable code, a message that says what is wrong and what would be right. */
export class ApiError extends Error {
  override name = "ApiError";
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: ErrorDetail[],
  ) {
    super(message);
  }

  /** The JSON body. */
  body(): ErrorBody {
    const error: ErrorBody["error"] = { code: this.code, message: this.message };
    if (this.details) error.details = this.details;
    return { error };
  }
}

/** 400 invalid_request. */
export function badRequest(message: string, details?: ErrorDetail[]): ApiError {
  return new ApiError(400, "invalid_request", message, details);
}

/** 404 not_found, naming what was looked for. */
export function notFound(what: string, id: string, hint = ""): ApiError {
  return new ApiError(
    404,
    "not_found",
    `${what} ${JSON.stringify(id)} does not exist${hint ? `; ${hint}` : ""}`,
  );
}

/** 400 invalid_json for an empty body sent as application/json. */
export function emptyJsonBody(): ApiError {
  return new ApiError(
    400,
    "invalid_json",
    "the body is empty but its Content-Type is application/json; send a JSON object",
  );
}

/**
 * 400 invalid_json for a body that is not JSON, from the parser's message; never echoes it (V8 quotes the body,
 * which may hold a key), only the position it names.
 */
export function invalidJson(parserMessage: string | undefined): ApiError {
  const position = /position (\d+)/.exec(parserMessage ?? "")?.[1];
  return new ApiError(
    400,
    "invalid_json",
    `the body is not valid JSON${position ? ` near character ${position}` : ""}; check quotes, commas and brackets`,
  );
}

/** 409 conflict. */
export function conflict(message: string, code = "conflict"): ApiError {
  return new ApiError(409, code, message);
}

function where(context: string | undefined, instancePath: string): string {
  const path = instancePath
    .split("/")
    .slice(1)
    .map((p) => p.replace(/~1/g, "/").replace(/~0/g, "~"))
    .map((p) => (/^\d+$/.test(p) ? `[${p}]` : `.${p}`))
    .join("");
  return `${context ?? "body"}${path}`;
}

/** A person's sentence for one schema error: where, what is wrong, what would be right. */
export function describeSchemaError(e: ErrorObject, context: string | undefined): string {
  const at = where(context, e.instancePath);
  const params = e.params as Record<string, unknown>;
  const parent = (e.parentSchema ?? {}) as Record<string, unknown>;
  switch (e.keyword) {
    case "required":
      return `${at} is missing the required field "${String(params.missingProperty)}"`;
    case "additionalProperties": {
      const allowed = Object.keys((parent.properties as Record<string, unknown>) ?? {});
      return `${at} has an unknown field "${String(params.additionalProperty)}"${
        allowed.length ? `; allowed fields: ${allowed.join(", ")}` : ""
      }`;
    }
    case "type":
      return `${at} must be ${params.type === "integer" ? "an integer" : `of type ${String(params.type)}`}`;
    case "enum":
      return `${at} must be one of ${((params.allowedValues as unknown[]) ?? []).map((v) => JSON.stringify(v)).join(", ")}`;
    case "const":
      return `${at} must be ${JSON.stringify(params.allowedValue)}`;
    case "pattern":
    case "format":
      return `${at} must be ${typeof parent.description === "string" ? parent.description : e.message}`;
    case "minLength":
      return Number(params.limit) === 1 ? `${at} must not be empty` : `${at} ${e.message}`;
    default:
      return `${at} ${e.message ?? "is not valid"}`;
  }
}

/** Fastify's error handler: every failure becomes `{"error": {...}}` with a 4xx or 5xx status. */
export function errorHandler(
  error: FastifyError & { validation?: ErrorObject[]; validationContext?: string },
  request: FastifyRequest,
  reply: FastifyReply,
): FastifyReply {
  if (error instanceof ApiError) return reply.code(error.status).send(error.body());
  if (error.name === "SecretError") {
    return reply.code(409).send(new ApiError(409, "secret_unreadable", error.message).body());
  }
  if (error.validation) {
    const messages = error.validation.map((e) => describeSchemaError(e, error.validationContext));
    return reply.code(400).send(new ApiError(400, "invalid_request", messages.join("; ")).body());
  }
  const status = typeof error.statusCode === "number" ? error.statusCode : 500;
  const known: Record<string, [string, string]> = {
    FST_ERR_CTP_BODY_TOO_LARGE: ["body_too_large", "the request body is larger than this route accepts"],
    FST_ERR_CTP_INVALID_MEDIA_TYPE: [
      "unsupported_media_type",
      "send the body as application/json (dataset uploads also take multipart/form-data)",
    ],
    FST_ERR_CTP_INVALID_CONTENT_LENGTH: ["invalid_request", "the Content-Length does not match the body"],
    FST_ERR_MAX_PARAM_LENGTH: [
      "invalid_request",
      "a path segment is too long: ids and names have at most 200 characters",
    ],
    FST_ERR_BAD_URL: ["invalid_request", "the URL is malformed: check its percent-encoding"],
  };
  if (error.code === "FST_ERR_CTP_EMPTY_JSON_BODY") return reply.code(400).send(emptyJsonBody().body());
  if (error.code === "FST_ERR_CTP_INVALID_JSON_BODY")
    return reply.code(400).send(invalidJson(error.message).body());
  const hit = known[error.code];
  if (hit) {
    const [code, text] = hit;
    const answered = status >= 400 && status < 500 ? status : 400;
    return reply.code(answered).send(new ApiError(answered, code, text).body());
  }
  if (status >= 400 && status < 500) {
    return reply.code(status).send(new ApiError(status, "invalid_request", error.message).body());
  }
  request.log.error({ err: { name: error.name, code: error.code, stack: error.stack } }, "unexpected error");
  return reply
    .code(500)
    .send(new ApiError(500, "internal_error", "the workbench failed unexpectedly; see its log").body());
}

/** Fastify's not-found handler. */
export function notFoundHandler(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const path = request.url.split("?")[0];
  return reply
    .code(404)
    .send(
      new ApiError(
        404,
        "not_found",
        `no route ${request.method} ${path}; the API lives under /api (see /docs for every route)`,
      ).body(),
    );
}
