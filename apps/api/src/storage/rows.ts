/**
 * Mapping between the rows of both stores and the storage types (JSON columns as text, booleans as integers), and
 * the column lists their statements are made of.
 */

import { reorderedJson, type State } from "@decision-workbench/datasets";
import { orderedState, type State as WireState } from "@decision-workbench/scorer";
import type {
  CalibrationRow,
  ExampleRow,
  RunPatch,
  RunStatus,
  ServerRow,
  Split,
  StopReason,
  StoredRun,
  TokenInfo,
  UploadRow,
} from "./types.js";

/** A row as better-sqlite3 or node-postgres returns it. */
export type Raw = Record<string, unknown>;

/** The words of a text, split at white space. */
const words = (text: string) => text.trim().split(/\s+/);

/** The columns of a servers row (serverToParams), in statement order. */
export const SERVER_COLUMNS = words(`
  id name base_url base_url_secret endpoint models api_key_secret extra_body timeout retries backoff
  deterministic embedded created_at requests_per_minute input_tokens_per_minute input_price_per_million
  output_price_per_million
`);

/** The columns of a new runs row (runToParams), in statement order. */
export const RUN_INSERT_COLUMNS = words(`
  id dataset dataset_hash server_id server_name endpoint model fingerprint splits concurrency max_len
  options limit_n status error created_at started_at finished_at owner_pid total headline max_cost
  max_input_tokens stop_reason items created_by name note stats
`);

/** The runs column of each field updateRun sets. */
const RUN_PATCH_COLUMNS: Record<keyof RunPatch, string> = {
  status: "status",
  error: "error",
  startedAt: "started_at",
  finishedAt: "finished_at",
  ownerPid: "owner_pid",
  headline: "headline",
  stats: "stats",
  total: "total",
  maxCost: "max_cost",
  maxInputTokens: "max_input_tokens",
  stopReason: "stop_reason",
  name: "name",
  note: "note",
};

/** The JSON text columns of the runs fields updateRun sets. */
const RUN_PATCH_JSON = new Set<keyof RunPatch>(["headline", "stats"]);

/** The columns a patch sets and their stored values (fields left undefined are not set). */
export function runPatchValues(patch: RunPatch): [column: string, value: unknown][] {
  const out: [string, unknown][] = [];
  for (const [key, value] of Object.entries(patch) as [keyof RunPatch, unknown][]) {
    const column = RUN_PATCH_COLUMNS[key];
    if (!column || value === undefined) continue;
    out.push([column, RUN_PATCH_JSON.has(key) ? toJson(value) : value]);
  }
  return out;
}

/** The LIKE pattern (backslash escapes) of a case-insensitive text filter, matched against lower(...). */
export function likePattern(q: string): string {
  return `%${q.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

function json<T>(text: unknown, fallback: T): T {
  return typeof text === "string" ? (JSON.parse(text) as T) : fallback;
}

function str(v: unknown): string {
  return String(v);
}

function strOrNull(v: unknown): string | null {
  return v === null || v === undefined ? null : String(v);
}

function numOrNull(v: unknown): number | null {
  return v === null || v === undefined ? null : Number(v);
}

/** JSON text of a value, or null for null/undefined. */
function toJson(value: unknown): string | null {
  return value === null || value === undefined ? null : JSON.stringify(value);
}

/** A servers row. */
export function serverFromRaw(r: Raw): ServerRow {
  return {
    id: str(r.id),
    name: str(r.name),
    baseUrl: str(r.base_url),
    baseUrlSecret: str(r.base_url_secret),
    endpoint: str(r.endpoint),
    models: json<string[]>(r.models, []),
    apiKeySecret: strOrNull(r.api_key_secret),
    extraBody: json<Record<string, unknown>>(r.extra_body, {}),
    timeout: Number(r.timeout),
    retries: Number(r.retries),
    backoff: Number(r.backoff),
    deterministic: r.deterministic === 1,
    requestsPerMinute: numOrNull(r.requests_per_minute),
    inputTokensPerMinute: numOrNull(r.input_tokens_per_minute),
    inputPricePerMillion: numOrNull(r.input_price_per_million),
    outputPricePerMillion: numOrNull(r.output_price_per_million),
    embedded: r.embedded === 1,
    createdAt: str(r.created_at),
  };
}

/** Named parameters of a servers row. */
export function serverToParams(s: ServerRow): Raw {
  return {
    id: s.id,
    name: s.name,
    base_url: s.baseUrl,
    base_url_secret: s.baseUrlSecret,
    endpoint: s.endpoint,
    models: JSON.stringify(s.models),
    api_key_secret: s.apiKeySecret,
    extra_body: JSON.stringify(s.extraBody),
    timeout: s.timeout,
    retries: s.retries,
    backoff: s.backoff,
    deterministic: s.deterministic ? 1 : 0,
    requests_per_minute: s.requestsPerMinute,
    input_tokens_per_minute: s.inputTokensPerMinute,
    input_price_per_million: s.inputPricePerMillion,
    output_price_per_million: s.outputPricePerMillion,
    embedded: s.embedded ? 1 : 0,
    created_at: s.createdAt,
  };
}

/** A datasets (upload) row. */
export function uploadFromRaw(r: Raw): UploadRow {
  return {
    name: str(r.name),
    task: json(r.task, {} as UploadRow["task"]),
    hash: str(r.hash),
    examples: Number(r.examples),
    splits: json<Record<Split, number>>(r.splits, { train: 0, calibration: 0, test: 0 }),
    createdAt: str(r.created_at),
    ...(r.created_by == null ? {} : { createdBy: str(r.created_by) }),
  };
}

/**
 * A datasets (upload) row's parameters, pending under `owner`: name, task, hash, examples, splits, created_at,
 * pending, created_by.
 */
export function uploadToParams(row: UploadRow, owner: string): (string | number | null)[] {
  return [
    row.name,
    JSON.stringify(row.task),
    row.hash,
    row.examples,
    JSON.stringify(row.splits),
    row.createdAt,
    owner,
    row.createdBy ?? null,
  ];
}

/** An examples row's parameters: dataset, ordinal, id, split, state, labels, meta. */
export function exampleToParams(name: string, ordinal: number, e: ExampleRow): (string | number | null)[] {
  // the state's text in its file's key order (stateJson, when JavaScript's object lost it): exampleFromRaw restores it
  const state = e.stateJson ?? JSON.stringify(e.state);
  return [name, ordinal, e.id, e.split, state, JSON.stringify(e.labels), toJson(e.meta)];
}

/** An examples row. */
export function exampleFromRaw(r: Raw): ExampleRow {
  const out: ExampleRow = {
    id: str(r.id),
    state: json(r.state, ""),
    labels: json(r.labels, {}),
    split: str(r.split) as Split,
  };
  // the stored text keeps the file's key order; the parsed state loses it when a key is integer-like
  const stateJson = typeof r.state === "string" ? reorderedJson(r.state, out.state) : undefined;
  if (stateJson !== undefined) out.stateJson = stateJson;
  if (typeof r.meta === "string") out.meta = JSON.parse(r.meta);
  return out;
}

/** A stored state's JSON text as the scorer sends it: an OrderedState when the parsed object lost its key order. */
export function wireStateOf(text: string): WireState {
  const state = JSON.parse(text) as State;
  const json = reorderedJson(text, state);
  return json === undefined ? state : orderedState(json);
}

/** A runs row. */
export function runFromRaw(r: Raw): StoredRun {
  return {
    id: str(r.id),
    dataset: str(r.dataset),
    datasetHash: str(r.dataset_hash),
    serverId: str(r.server_id),
    serverName: str(r.server_name),
    endpoint: str(r.endpoint),
    model: str(r.model),
    fingerprint: str(r.fingerprint),
    splits: json<Split[]>(r.splits, []),
    concurrency: Number(r.concurrency),
    maxLen: numOrNull(r.max_len),
    options: json<Record<string, unknown>>(r.options, {}),
    limit: numOrNull(r.limit_n),
    maxCost: numOrNull(r.max_cost),
    maxInputTokens: numOrNull(r.max_input_tokens),
    status: str(r.status) as RunStatus,
    stopReason: strOrNull(r.stop_reason) as StopReason | null,
    error: strOrNull(r.error),
    createdAt: str(r.created_at),
    startedAt: strOrNull(r.started_at),
    finishedAt: strOrNull(r.finished_at),
    ownerPid: numOrNull(r.owner_pid),
    total: Number(r.total),
    counters: {
      done: Number(r.done),
      answered: Number(r.answered),
      unknown: Number(r.unknown),
      escalated: Number(r.escalated),
      errors: Number(r.errors),
      inputTokens: Number(r.input_tokens),
      outputTokens: Number(r.output_tokens),
      reasoningTokens: Number(r.reasoning_tokens),
      cost: Number(r.cost),
      activeMs: Number(r.active_ms),
    },
    headline: json(r.headline, null),
    stats: json(r.stats, null),
    items: json(r.items, []),
    ...(r.created_by == null ? {} : { createdBy: str(r.created_by) }),
    ...(r.name == null ? {} : { name: str(r.name) }),
    ...(r.note == null ? {} : { note: str(r.note) }),
  };
}

/** Named parameters of a new runs row. */
export function runToParams(run: StoredRun): Raw {
  return {
    id: run.id,
    dataset: run.dataset,
    dataset_hash: run.datasetHash,
    server_id: run.serverId,
    server_name: run.serverName,
    endpoint: run.endpoint,
    model: run.model,
    fingerprint: run.fingerprint,
    splits: JSON.stringify(run.splits),
    concurrency: run.concurrency,
    max_len: run.maxLen,
    options: JSON.stringify(run.options),
    limit_n: run.limit,
    status: run.status,
    error: run.error,
    created_at: run.createdAt,
    started_at: run.startedAt,
    finished_at: run.finishedAt,
    owner_pid: run.ownerPid,
    total: run.total,
    headline: toJson(run.headline),
    stats: toJson(run.stats),
    max_cost: run.maxCost,
    max_input_tokens: run.maxInputTokens,
    stop_reason: run.stopReason,
    items: JSON.stringify(run.items ?? []),
    created_by: run.createdBy ?? null,
    name: run.name ?? null,
    note: run.note ?? null,
  };
}

/** A calibrations row. */
export function calibrationFromRaw(r: Raw): CalibrationRow {
  return {
    id: str(r.id),
    runId: strOrNull(r.run_id),
    createdAt: str(r.created_at),
    payload: json<Record<string, unknown>>(r.payload, {}),
  };
}

/** The columns of a token a listing shows (never its hash). */
export const TOKEN_INFO_COLUMNS = "id, name, created_at, revoked_at";

export function tokenFromRaw(r: Raw): TokenInfo {
  return {
    id: str(r.id),
    name: str(r.name),
    createdAt: str(r.created_at),
    revokedAt: strOrNull(r.revoked_at),
  };
}
