/** Decision servers: what POST and PATCH take, what the API shows (never the key), and the check's answer. */

import { type Static, Type } from "typebox";
import { Either, Nullable, NumberOrNull, OpenObject, StringEnum } from "./common.js";
import { RunStatusSchema } from "./runs.js";

/** POST /api/servers body. */
export const ServerInput = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    baseUrl: Type.String({
      minLength: 1,
      maxLength: 2000,
      description: "the server's base URL, http:// or https:// (requests go to {baseUrl}/v1/decision)",
    }),
    models: Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { minItems: 1, maxItems: 100 }),
    apiKey: Type.Optional(
      Type.Union([Type.String({ minLength: 1, maxLength: 4096 }), Type.Null()], {
        description: "write-only; null clears it",
      }),
    ),
    extraBody: Type.Optional(
      Type.Unsafe<Record<string, unknown>>({
        type: "object",
        additionalProperties: true,
        maxProperties: 100,
      }),
    ),
    timeout: Type.Optional(
      Type.Number({ exclusiveMinimum: 0, maximum: 3600, description: "seconds per request (30)" }),
    ),
    retries: Type.Optional(Type.Integer({ minimum: 0, maximum: 20, description: "extra attempts (2)" })),
    backoff: Type.Optional(
      Type.Number({ minimum: 0, maximum: 600, description: "seconds; waits are backoff * 2^k (1)" }),
    ),
    deterministic: Type.Optional(Type.Boolean()),
    requestsPerMinute: Type.Optional(
      NumberOrNull("requests a minute the server allows; every run on it is paced to it (null: no limit)"),
    ),
    inputTokensPerMinute: Type.Optional(
      NumberOrNull(
        "estimated input tokens a minute the server allows, (words + punctuation) * 1.3 (null: no limit)",
      ),
    ),
    inputPricePerMillion: Type.Optional(
      NumberOrNull("price of a million input tokens: runs show an estimated cost and count it (null: none)"),
    ),
    outputPricePerMillion: Type.Optional(NumberOrNull("price of a million output tokens (null: none)")),
  },
  { additionalProperties: false },
);
export type ServerInput = Static<typeof ServerInput>;

/** PATCH /api/servers/:id body: any of the fields, at least one. */
export const ServerPatch = Type.Partial(ServerInput, { additionalProperties: false, minProperties: 1 });
export type ServerPatch = Static<typeof ServerPatch>;

/** A server as shown (never the key). */
export const Server = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    baseUrl: Type.String(),
    endpoint: Type.String(),
    models: Type.Array(Type.String()),
    hasApiKey: Type.Boolean(),
    extraBody: OpenObject(),
    timeout: Type.Number(),
    retries: Type.Integer(),
    backoff: Type.Number(),
    deterministic: Type.Boolean(),
    requestsPerMinute: NumberOrNull(),
    inputTokensPerMinute: NumberOrNull(),
    inputPricePerMillion: NumberOrNull(),
    outputPricePerMillion: NumberOrNull(),
    embedded: Type.Boolean(),
    createdAt: Type.String(),
  },
  { additionalProperties: false },
);
export type Server = Static<typeof Server>;

/** POST /api/servers/:id/check: the model list and one probe question. */
export const ServerCheck = Type.Object({
  ok: Type.Boolean(),
  models: Nullable(
    Type.Array(Type.Object({ name: Type.String(), description: Type.Optional(Type.String()) })),
  ),
  modelsError: Type.Optional(Type.String()),
  probe: Type.Object({
    model: Type.String(),
    status: StringEnum(["answered", "unknown", "escalated", "error"]),
    answer: Type.Optional(Either([Type.String(), Type.Array(Type.String())])),
    confidence: Type.Optional(Type.Number()),
    reason: Type.Optional(Type.String()),
    ms: Type.Number(),
    servedBy: Type.Optional(Type.String()),
  }),
});
export type ServerCheck = Static<typeof ServerCheck>;

/**
 * POST /api/servers/check body: a server not saved yet, checked before it is added (its models listed, one probe
 * sent). `models` may be empty: the probe then goes to the first model the server lists.
 */
export const ServerCheckInput = Type.Object(
  {
    baseUrl: ServerInput.properties.baseUrl,
    models: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { minItems: 0, maxItems: 100 }),
    ),
    apiKey: Type.Optional(Type.String({ minLength: 1, maxLength: 4096, description: "write-only" })),
    extraBody: ServerInput.properties.extraBody,
    timeout: ServerInput.properties.timeout,
    retries: ServerInput.properties.retries,
    backoff: ServerInput.properties.backoff,
  },
  { additionalProperties: false },
);
export type ServerCheckInput = Static<typeof ServerCheckInput>;

/** The most runs GET /api/servers/:id/runs lists (newest first); `count` is always the whole number. */
export const SERVER_RUNS_LISTED = 100;

/** GET /api/servers/:id/runs: the runs that use a server, so a person deleting it knows what they touch. */
export const ServerRuns = Type.Object(
  {
    count: Type.Integer({ description: "every run that uses the server" }),
    runs: Type.Array(
      Type.Object(
        {
          id: Type.String(),
          name: Nullable(Type.String()),
          dataset: Type.String(),
          model: Type.String(),
          status: RunStatusSchema,
          createdAt: Type.String(),
        },
        { additionalProperties: false },
      ),
      { description: `the newest ${SERVER_RUNS_LISTED} of them` },
    ),
  },
  { additionalProperties: false },
);
export type ServerRuns = Static<typeof ServerRuns>;
