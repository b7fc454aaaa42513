/** JSON schemas shared by the routes: inputs are validated with them, outputs serialised, /docs built from them. */

/** A JSON object with anything inside. */
export const anyObject = { type: "object", additionalProperties: true } as const;

/** Any JSON value. */
export const anyValue = {} as const;

/** The error body. */
export const errorSchema = {
  type: "object",
  properties: {
    error: {
      type: "object",
      properties: {
        code: { type: "string" },
        message: { type: "string" },
        details: { type: "array", items: anyObject },
      },
      required: ["code", "message"],
    },
  },
  required: ["error"],
} as const;

/** Error answers of every route (4xx/5xx). */
export const errorResponses = {
  "4xx": errorSchema,
  "5xx": errorSchema,
} as const;

/** A path parameter id. */
export const idParams = {
  type: "object",
  properties: { id: { type: "string", minLength: 1, maxLength: 200 } },
  required: ["id"],
  additionalProperties: false,
} as const;

/** `?force=true`. */
export const forceQuery = {
  type: "object",
  properties: { force: { type: "boolean", description: "true or false" } },
  additionalProperties: false,
} as const;

/** The three splits. */
export const splitSchema = { type: "string", enum: ["train", "calibration", "test"] } as const;

const serverFields = {
  name: { type: "string", minLength: 1, maxLength: 200 },
  baseUrl: {
    type: "string",
    minLength: 1,
    maxLength: 2000,
    description: "the server's base URL, http:// or https:// (requests go to {baseUrl}/v1/decision)",
  },
  models: {
    type: "array",
    minItems: 1,
    maxItems: 100,
    items: { type: "string", minLength: 1, maxLength: 200 },
  },
  apiKey: {
    anyOf: [{ type: "string", minLength: 1, maxLength: 4096 }, { type: "null" }],
    description: "write-only; null clears it",
  },
  extraBody: { type: "object", additionalProperties: true, maxProperties: 100 },
  timeout: { type: "number", exclusiveMinimum: 0, maximum: 3600, description: "seconds per request (30)" },
  retries: { type: "integer", minimum: 0, maximum: 20, description: "extra attempts (2)" },
  backoff: { type: "number", minimum: 0, maximum: 600, description: "seconds; waits are backoff * 2^k (1)" },
  deterministic: { type: "boolean" },
  requestsPerMinute: {
    type: ["number", "null"],
    description: "requests a minute the server allows; every run on it is paced to it (null: no limit)",
  },
  inputTokensPerMinute: {
    type: ["number", "null"],
    description:
      "estimated input tokens a minute the server allows, (words + punctuation) * 1.3 (null: no limit)",
  },
  inputPricePerMillion: {
    type: ["number", "null"],
    description: "price of a million input tokens: runs show an estimated cost and count it (null: none)",
  },
  outputPricePerMillion: {
    type: ["number", "null"],
    description: "price of a million output tokens (null: none)",
  },
} as const;

/** POST /api/servers body. */
export const serverInputSchema = {
  type: "object",
  properties: serverFields,
  required: ["name", "baseUrl", "models"],
  additionalProperties: false,
} as const;

/** PATCH /api/servers/:id body. */
export const serverPatchSchema = {
  type: "object",
  properties: serverFields,
  additionalProperties: false,
  minProperties: 1,
} as const;

/** A server as shown (never the key). */
export const serverSchema = {
  type: "object",
  properties: {
    id: { type: "string" },
    name: { type: "string" },
    baseUrl: { type: "string" },
    endpoint: { type: "string" },
    models: { type: "array", items: { type: "string" } },
    hasApiKey: { type: "boolean" },
    extraBody: anyObject,
    timeout: { type: "number" },
    retries: { type: "integer" },
    backoff: { type: "number" },
    deterministic: { type: "boolean" },
    requestsPerMinute: { type: ["number", "null"] },
    inputTokensPerMinute: { type: ["number", "null"] },
    inputPricePerMillion: { type: ["number", "null"] },
    outputPricePerMillion: { type: ["number", "null"] },
    embedded: { type: "boolean" },
    createdAt: { type: "string" },
  },
  required: [
    "id",
    "name",
    "baseUrl",
    "endpoint",
    "models",
    "hasApiKey",
    "extraBody",
    "timeout",
    "retries",
    "backoff",
    "deterministic",
    "requestsPerMinute",
    "inputTokensPerMinute",
    "inputPricePerMillion",
    "outputPricePerMillion",
    "embedded",
    "createdAt",
  ],
  additionalProperties: false,
} as const;

/** The check action's answer. */
export const checkSchema = {
  type: "object",
  properties: {
    ok: { type: "boolean" },
    models: {
      anyOf: [
        {
          type: "array",
          items: {
            type: "object",
            properties: { name: { type: "string" }, description: { type: "string" } },
            required: ["name"],
          },
        },
        { type: "null" },
      ],
    },
    modelsError: { type: "string" },
    probe: {
      type: "object",
      properties: {
        model: { type: "string" },
        status: { type: "string" },
        answer: { anyOf: [{ type: "string" }, { type: "array", items: { type: "string" } }] },
        confidence: { type: "number" },
        reason: { type: "string" },
        ms: { type: "number" },
        servedBy: { type: "string" },
      },
      required: ["model", "status", "ms"],
    },
  },
  required: ["ok", "models", "probe"],
} as const;

const splitCounts = {
  type: "object",
  properties: { train: { type: "integer" }, calibration: { type: "integer" }, test: { type: "integer" } },
  required: ["train", "calibration", "test"],
} as const;

const datasetSummaryProperties = {
  name: { type: "string" },
  description: { type: "string" },
  source: { type: "string", enum: ["bundled", "upload"] },
  hash: { type: "string" },
  examples: { type: "integer" },
  splits: splitCounts,
  items: {
    type: "array",
    items: {
      type: "object",
      properties: {
        name: { type: "string" },
        kind: { type: "string" },
        options: { type: "array", items: { type: "string" } },
        notStated: { type: "boolean" },
      },
      required: ["name", "kind", "options", "notStated"],
    },
  },
} as const;

/** A dataset summary. */
export const datasetSummarySchema = {
  type: "object",
  properties: datasetSummaryProperties,
  required: ["name", "description", "source", "hash", "examples", "splits", "items"],
} as const;

/** A dataset with its task and label counts. */
export const datasetDetailSchema = {
  type: "object",
  properties: {
    ...datasetSummaryProperties,
    task: anyObject,
    labelCounts: {
      type: "array",
      items: {
        type: "object",
        properties: {
          item: { type: "string" },
          split: { type: "string" },
          label: { type: "string" },
          count: { type: "integer" },
        },
        required: ["item", "split", "label", "count"],
      },
    },
  },
  required: ["name", "description", "source", "hash", "examples", "splits", "items", "task", "labelCounts"],
} as const;

/** One example. */
export const exampleSchema = {
  type: "object",
  properties: {
    id: { type: "string" },
    state: anyValue,
    labels: anyObject,
    meta: anyObject,
    split: { type: "string" },
  },
  required: ["id", "state", "labels", "split"],
} as const;

/** Run progress. */
export const progressSchema = {
  type: "object",
  properties: {
    total: { type: "integer" },
    done: { type: "integer" },
    answered: { type: "integer" },
    unknown: { type: "integer" },
    escalated: { type: "integer" },
    errors: { type: "integer" },
    usage: {
      type: "object",
      properties: {
        input_tokens: { type: "number" },
        output_tokens: { type: "number" },
        reasoning_tokens: { type: "number" },
      },
      required: ["input_tokens", "output_tokens", "reasoning_tokens"],
    },
    cost: { type: "number" },
    latency: {
      type: "object",
      properties: { p50: { type: "number" }, p90: { type: "number" }, p99: { type: "number" } },
      required: ["p50", "p90", "p99"],
    },
    examplesPerSecond: { type: "number" },
    waitingForRateLimit: {
      anyOf: [{ type: "number" }, { type: "null" }],
      description:
        "seconds until the run's queued requests may go under its server's rate limit; null: none waits",
    },
    budget: {
      anyOf: [
        {
          type: "object",
          properties: {
            maxCost: { anyOf: [{ type: "number" }, { type: "null" }] },
            maxInputTokens: { anyOf: [{ type: "number" }, { type: "null" }] },
          },
          required: ["maxCost", "maxInputTokens"],
        },
        { type: "null" },
      ],
      description: "the run's caps, which usage.input_tokens and cost are spent against; null: none",
    },
  },
  required: [
    "total",
    "done",
    "answered",
    "unknown",
    "escalated",
    "errors",
    "usage",
    "cost",
    "latency",
    "examplesPerSecond",
  ],
} as const;

const nullableString = { anyOf: [{ type: "string" }, { type: "null" }] } as const;
const nullableNumber = { anyOf: [{ type: "number" }, { type: "null" }] } as const;

/** A run summary. */
export const runSummarySchema = {
  type: "object",
  properties: {
    id: { type: "string" },
    dataset: { type: "string" },
    datasetHash: { type: "string" },
    serverId: { type: "string" },
    serverName: { type: "string" },
    endpoint: { type: "string" },
    model: { type: "string" },
    servedBy: { type: "array", items: { type: "string" } },
    fingerprint: { type: "string" },
    splits: { type: "array", items: { type: "string" } },
    concurrency: { type: "integer" },
    maxLen: nullableNumber,
    options: anyObject,
    limit: nullableNumber,
    maxCost: nullableNumber,
    maxInputTokens: nullableNumber,
    status: { type: "string", enum: ["queued", "running", "done", "cancelled", "failed", "stopped"] },
    stopReason: { anyOf: [{ type: "string", enum: ["budget"] }, { type: "null" }] },
    error: nullableString,
    createdAt: { type: "string" },
    startedAt: nullableString,
    finishedAt: nullableString,
    progress: progressSchema,
    headline: {
      type: "object",
      properties: { accuracy: nullableNumber, ece: nullableNumber, n: { type: "integer" } },
      required: ["accuracy", "ece"],
    },
  },
  required: [
    "id",
    "dataset",
    "datasetHash",
    "serverId",
    "serverName",
    "endpoint",
    "model",
    "servedBy",
    "fingerprint",
    "splits",
    "concurrency",
    "maxLen",
    "options",
    "limit",
    "maxCost",
    "maxInputTokens",
    "status",
    "stopReason",
    "error",
    "createdAt",
    "startedAt",
    "finishedAt",
    "progress",
    "headline",
  ],
} as const;

/** A run's caps (checked in engine/cost-guard.ts, whose 400 says what is right). */
const capFields = {
  maxCost: {
    type: ["number", "null"],
    description: "the run stops (stopped, reason budget) before a request that would take its cost past this",
  },
  maxInputTokens: {
    type: ["number", "null"],
    description: "the same for its input tokens (replies' usage, estimates for requests in flight)",
  },
} as const;

/** POST /api/runs body. */
export const runInputSchema = {
  type: "object",
  properties: {
    dataset: { type: "string", minLength: 1, maxLength: 200 },
    serverId: { type: "string", minLength: 1, maxLength: 200 },
    model: { type: "string", minLength: 1, maxLength: 200 },
    splits: { type: "array", minItems: 1, maxItems: 3, uniqueItems: true, items: splitSchema },
    concurrency: { type: "integer", minimum: 1, maximum: 256 },
    maxLen: { anyOf: [{ type: "integer", minimum: 16, maximum: 1000000 }, { type: "null" }] },
    options: {
      type: "object",
      properties: {
        max_think: { type: "integer", minimum: 0 },
        nothink_threshold: { anyOf: [{ type: "number", minimum: 0, maximum: 1 }, { type: "null" }] },
        return_reasoning: { type: "boolean" },
        think: { type: "boolean" },
      },
      additionalProperties: false,
    },
    limit: { anyOf: [{ type: "integer", minimum: 1 }, { type: "null" }] },
    ...capFields,
  },
  required: ["dataset", "serverId", "model"],
  additionalProperties: false,
} as const;

/** POST /api/runs/:id/resume body (optional): new caps. */
export const resumeInputSchema = {
  anyOf: [{ type: "object", properties: capFields, additionalProperties: false }, { type: "null" }],
} as const;

/** What POST /api/runs/estimate answers. */
export const runEstimateSchema = {
  type: "object",
  properties: {
    examples: { type: "integer" },
    decisions: { type: "integer" },
    inputTokens: { type: "number" },
    outputTokens: { type: "number" },
    inputPricePerMillion: nullableNumber,
    outputPricePerMillion: nullableNumber,
    cost: nullableNumber,
  },
  required: [
    "examples",
    "decisions",
    "inputTokens",
    "outputTokens",
    "inputPricePerMillion",
    "outputPricePerMillion",
    "cost",
  ],
  additionalProperties: false,
} as const;

/** The replay answer. */
export const replaySchema = {
  type: "object",
  properties: {
    checked: { type: "integer" },
    differing: { type: "integer" },
    called: { type: "boolean" },
    byField: { type: "object", additionalProperties: { type: "integer" } },
    examples: {
      type: "array",
      items: {
        type: "object",
        properties: {
          exampleId: { type: "string" },
          item: { type: "string" },
          differences: { type: "array", items: anyValue },
        },
      },
    },
  },
  required: ["checked", "differing", "called", "byField", "examples"],
} as const;
