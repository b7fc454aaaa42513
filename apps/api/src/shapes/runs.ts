/** Runs: what starts one, its progress and summary, the estimate and the replay. */

import { type Static, Type } from "typebox";
import {
  AnyValue,
  Dict,
  Name,
  Nullable,
  NumberOrNull,
  OpenObject,
  SplitSchema,
  StringEnum,
} from "./common.js";
import { CONCURRENCY, MAX_LEN } from "./limits.js";

/** A run's states. */
export const RUN_STATUSES = ["queued", "running", "done", "cancelled", "failed", "stopped"] as const;
export const RunStatusSchema = StringEnum(RUN_STATUSES);
export type RunStatus = Static<typeof RunStatusSchema>;

/** Live or final progress of a run. */
export const Progress = Type.Object({
  total: Type.Integer(),
  done: Type.Integer(),
  answered: Type.Integer(),
  unknown: Type.Integer(),
  escalated: Type.Integer(),
  errors: Type.Integer(),
  usage: Type.Object({
    input_tokens: Type.Number(),
    output_tokens: Type.Number(),
    reasoning_tokens: Type.Number(),
  }),
  cost: Type.Number(),
  latency: Type.Object({ p50: Type.Number(), p90: Type.Number(), p99: Type.Number() }),
  examplesPerSecond: Type.Number(),
  waitingForRateLimit: Nullable(Type.Number(), {
    description:
      "seconds until the run's queued requests may go under its server's rate limit; null: none waits",
  }),
  budget: Nullable(
    Type.Object({ maxCost: Nullable(Type.Number()), maxInputTokens: Nullable(Type.Number()) }),
    { description: "the run's caps, which usage.input_tokens and cost are spent against; null: none" },
  ),
});
export type Progress = Static<typeof Progress>;

/** What GET /api/runs/:id answers. */
export const RunSummary = Type.Object({
  id: Type.String(),
  dataset: Type.String(),
  datasetHash: Type.String(),
  serverId: Type.String(),
  serverName: Type.String(),
  endpoint: Type.String(),
  model: Type.String(),
  servedBy: Type.Array(Type.String()),
  fingerprint: Type.String(),
  splits: Type.Array(SplitSchema),
  concurrency: Type.Integer(),
  maxLen: Nullable(Type.Number()),
  options: OpenObject(),
  limit: Nullable(Type.Number()),
  maxCost: Nullable(Type.Number()),
  maxInputTokens: Nullable(Type.Number()),
  status: RunStatusSchema,
  stopReason: Nullable(StringEnum(["budget"])),
  error: Nullable(Type.String()),
  createdAt: Type.String(),
  startedAt: Nullable(Type.String()),
  finishedAt: Nullable(Type.String()),
  progress: Progress,
  headline: Type.Object({
    accuracy: Nullable(Type.Number()),
    ece: Nullable(Type.Number()),
    n: Type.Optional(Type.Integer()),
  }),
  /** The name of the person whose token started the run (`workbench tokens`), else null. */
  createdBy: Nullable(Type.String()),
  /** The name people gave the run (PATCH /api/runs/:id), else null. */
  name: Nullable(Type.String()),
  /** A note about the run, else null. */
  note: Nullable(Type.String()),
});
export type RunSummary = Static<typeof RunSummary>;

/** The longest run name, in characters after trimming. */
export const RUN_NAME_MAX = 80;
/** The longest run note, in characters after trimming. */
export const RUN_NOTE_MAX = 2000;

/**
 * A run's name and note as a body gives them: each a string, null (none; in a patch, clears it) or absent (in a
 * patch, unchanged). The route trims them and answers 400 for a name that is empty, longer than RUN_NAME_MAX or
 * holds control characters, and for a note longer than RUN_NOTE_MAX or holding control characters other than tabs
 * and line breaks.
 */
const labels = {
  name: Type.Optional(
    Type.Unsafe<string | null>({
      type: ["string", "null"],
      description: `a name to tell the run apart: 1-${RUN_NAME_MAX} characters on one line; null: none`,
    }),
  ),
  note: Type.Optional(
    Type.Unsafe<string | null>({
      type: ["string", "null"],
      description: `a note about the run: at most ${RUN_NOTE_MAX} characters; null: none`,
    }),
  ),
};

/** PATCH /api/runs/:id body: a new name and/or note (null clears it; an absent field stays as it is). */
export const RunPatchInput = Type.Object(labels, { additionalProperties: false });
export type RunPatchInput = Static<typeof RunPatchInput>;

/** A run's caps (checked in engine/cost-guard.ts, whose 400 says what is right). */
const caps = {
  maxCost: Type.Optional(
    NumberOrNull(
      "the run stops (stopped, reason budget) before a request that would take its cost past this",
    ),
  ),
  maxInputTokens: Type.Optional(
    NumberOrNull("the same for its input tokens (replies' usage, estimates for requests in flight)"),
  ),
};

/** POST /api/runs body (and POST /api/runs/estimate). */
export const RunInput = Type.Object(
  {
    dataset: Name(),
    serverId: Name(),
    model: Name(),
    splits: Type.Optional(Type.Array(SplitSchema, { minItems: 1, maxItems: 3, uniqueItems: true })),
    concurrency: Type.Optional(Type.Integer({ minimum: CONCURRENCY.min, maximum: CONCURRENCY.max })),
    maxLen: Type.Optional(Nullable(Type.Integer({ minimum: MAX_LEN.min, maximum: MAX_LEN.max }))),
    options: Type.Optional(
      Type.Object(
        {
          max_think: Type.Optional(Type.Integer({ minimum: 0 })),
          nothink_threshold: Type.Optional(Nullable(Type.Number({ minimum: 0, maximum: 1 }))),
          return_reasoning: Type.Optional(Type.Boolean()),
          think: Type.Optional(Type.Boolean()),
        },
        { additionalProperties: false },
      ),
    ),
    limit: Type.Optional(Nullable(Type.Integer({ minimum: 1 }))),
    ...caps,
    ...labels,
  },
  { additionalProperties: false },
);
export type RunInput = Static<typeof RunInput>;

/** POST /api/runs/:id/resume body (optional): new caps. */
export const ResumeInput = Nullable(Type.Object(caps, { additionalProperties: false }));
export type ResumeInput = Static<typeof ResumeInput>;

/** GET /api/runs query. */
export const RunsQuery = Type.Object(
  { dataset: Type.Optional(Name()), status: Type.Optional(RunStatusSchema) },
  { additionalProperties: false },
);

/** GET /api/runs/:id/events query. */
export const EventsQuery = Type.Object(
  { token: Type.Optional(Type.String({ description: "the bearer token, for EventSource (no headers)" })) },
  { additionalProperties: false },
);

/** What POST /api/runs/estimate answers. */
export const RunEstimate = Type.Object(
  {
    examples: Type.Integer(),
    decisions: Type.Integer(),
    inputTokens: Type.Number(),
    outputTokens: Type.Number(),
    inputPricePerMillion: Nullable(Type.Number()),
    outputPricePerMillion: Nullable(Type.Number()),
    cost: Nullable(Type.Number()),
  },
  { additionalProperties: false },
);
export type RunEstimate = Static<typeof RunEstimate>;

/** What POST /api/runs/:id/replay answers. */
export const ReplayResult = Type.Object({
  checked: Type.Integer(),
  differing: Type.Integer(),
  called: Type.Boolean(),
  byField: Dict(Type.Integer()),
  examples: Type.Array(
    Type.Object({
      exampleId: Type.String(),
      item: Type.String(),
      differences: Type.Array(AnyValue),
    }),
  ),
});
export type ReplayResult = Static<typeof ReplayResult>;
