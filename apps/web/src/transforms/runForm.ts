/** The new-run form: defaults a newcomer can start from, checks, and the API body. */

import { CONCURRENCY, MAX_LEN } from "@decision-workbench/api/limits";
import type { DatasetSummary, RunInput, Server, Split } from "@decision-workbench/api/shapes";
import { type FieldLabel, fieldProblems, type ProblemRule } from "./apiErrors";
import { amount } from "./serverForm";

/** What the form holds (strings as typed). */
export interface RunFormValues {
  dataset: string;
  serverId: string;
  model: string;
  splits: Split[];
  concurrency: string;
  /** First N examples per split; empty for all. */
  limit: string;
  /** Retrieval budget of long states; empty for none. */
  maxLen: string;
  maxThink: string;
  nothinkThreshold: string;
  returnReasoning: boolean;
  /** "default" sends nothing. */
  think: "default" | "on" | "off";
  /** Caps: the run stops (status stopped, reason budget) before a request that would pass one; empty: none. */
  maxCost?: string;
  maxInputTokens?: string;
}

/** Errors by field. */
export type RunFormErrors = Partial<Record<keyof RunFormValues, string>>;

/** The dataset a first run starts from when it is there: small, three kinds of item, some "not stated". */
export const FIRST_DATASET = "penguins";

/** Defaults: the first dataset (or the first bundled one), the embedded server and its first model. */
export function defaultRunForm(
  datasets: DatasetSummary[],
  servers: Server[],
  prefill: Partial<Pick<RunFormValues, "dataset" | "serverId" | "model">> = {},
): RunFormValues {
  const dataset =
    datasets.find((d) => d.name === prefill.dataset)?.name ??
    datasets.find((d) => d.name === FIRST_DATASET)?.name ??
    datasets.find((d) => d.source === "bundled")?.name ??
    datasets[0]?.name ??
    "";
  const server =
    servers.find((s) => s.id === prefill.serverId) ?? servers.find((s) => s.embedded) ?? servers[0];
  const model = server?.models.includes(prefill.model ?? "")
    ? (prefill.model as string)
    : (server?.models[0] ?? "");
  return {
    dataset,
    serverId: server?.id ?? "",
    model,
    splits: ["calibration", "test"],
    concurrency: String(CONCURRENCY.default),
    limit: "",
    maxLen: "",
    maxThink: "",
    nothinkThreshold: "",
    returnReasoning: true,
    think: "default",
    maxCost: "",
    maxInputTokens: "",
  };
}

function intField(text: string, label: string, min: number, max: number): number | undefined | string {
  const t = text.trim();
  if (!t) return undefined;
  const x = Number(t);
  if (!Number.isInteger(x) || x < min || x > max)
    return `${label} must be a whole number from ${min} to ${max}, got “${t}”.`;
  return x;
}

/** Checks the form against the datasets and servers it offers; returns the POST /api/runs body. */
export function parseRunForm(
  v: RunFormValues,
  datasets: DatasetSummary[],
  servers: Server[],
): { ok: true; input: RunInput } | { ok: false; errors: RunFormErrors } {
  const errors: RunFormErrors = {};
  const dataset = datasets.find((d) => d.name === v.dataset);
  if (!dataset)
    errors.dataset = v.dataset
      ? `No dataset named “${v.dataset}”; pick one from the list.`
      : "Pick a dataset.";
  const server = servers.find((s) => s.id === v.serverId);
  if (!server) errors.serverId = "Pick a server (add one on the Servers page).";
  if (!v.model.trim()) errors.model = "Pick or type the model to ask for.";
  if (v.splits.length === 0)
    errors.splits =
      "Pick at least one split; calibration and test are needed to fit and check a calibration.";
  else if (dataset) {
    const empty = v.splits.filter((s) => dataset.splits[s] === 0);
    if (empty.length) errors.splits = `The ${empty.join(" and ")} split of ${dataset.name} has no examples.`;
  }
  const concurrency = intField(
    v.concurrency || String(CONCURRENCY.default),
    "Concurrency",
    CONCURRENCY.min,
    CONCURRENCY.max,
  );
  if (typeof concurrency === "string") errors.concurrency = concurrency;
  const limit = intField(v.limit, "Limit", 1, 1_000_000);
  if (typeof limit === "string") errors.limit = limit;
  const maxLen = intField(v.maxLen, "Max state length", MAX_LEN.min, MAX_LEN.max);
  if (typeof maxLen === "string") errors.maxLen = maxLen;
  const maxThink = intField(v.maxThink, "max_think", 0, 1_000_000);
  if (typeof maxThink === "string") errors.maxThink = maxThink;
  let nothink: number | undefined;
  if (v.nothinkThreshold.trim()) {
    const x = Number(v.nothinkThreshold);
    if (!Number.isFinite(x) || x < 0 || x > 1)
      errors.nothinkThreshold = `nothink_threshold must be a number from 0 to 1, got “${v.nothinkThreshold.trim()}”.`;
    else nothink = x;
  }
  const maxCost = amount(v.maxCost ?? "", "Max cost", "2.5");
  if (typeof maxCost === "string") errors.maxCost = maxCost;
  const maxInputTokens = amount(v.maxInputTokens ?? "", "Max input tokens", "500000");
  if (typeof maxInputTokens === "string") errors.maxInputTokens = maxInputTokens;
  if (Object.keys(errors).length) return { ok: false, errors };

  const options: RunInput["options"] = {};
  if (maxThink !== undefined) options.max_think = maxThink as number;
  if (nothink !== undefined) options.nothink_threshold = nothink;
  if (v.returnReasoning) options.return_reasoning = true;
  if (v.think !== "default") options.think = v.think === "on";
  const input: RunInput = {
    dataset: v.dataset,
    serverId: v.serverId,
    model: v.model.trim(),
    splits: v.splits,
    concurrency: (concurrency as number | undefined) ?? CONCURRENCY.default,
  };
  if (limit !== undefined) input.limit = limit as number;
  if (maxLen !== undefined) input.maxLen = maxLen as number;
  if (Object.keys(options).length) input.options = options;
  if (maxCost !== null) input.maxCost = maxCost as number;
  if (maxInputTokens !== null) input.maxInputTokens = maxInputTokens as number;
  return { ok: true, input };
}

/** How many examples a run will ask about (the splits' sizes, cut at the limit). */
export function runSize(v: RunFormValues, dataset: DatasetSummary | undefined): number {
  if (!dataset) return 0;
  const limit = Number.parseInt(v.limit, 10);
  return v.splits.reduce(
    (s, sp) =>
      s + (Number.isFinite(limit) && limit > 0 ? Math.min(limit, dataset.splits[sp]) : dataset.splits[sp]),
    0,
  );
}

/** The run form's fields by the API's names for them, with their labels and units. */
const RUN_FIELDS: Record<string, { key: keyof RunFormValues; label: FieldLabel }> = {
  dataset: { key: "dataset", label: { label: "Dataset" } },
  serverId: { key: "serverId", label: { label: "Decision server" } },
  model: { key: "model", label: { label: "Model" } },
  splits: { key: "splits", label: { label: "Splits" } },
  concurrency: { key: "concurrency", label: { label: "Concurrency" } },
  limit: { key: "limit", label: { label: "Limit per split", unit: "examples" } },
  maxLen: { key: "maxLen", label: { label: "Max state length", unit: "characters" } },
  "options.max_think": { key: "maxThink", label: { label: "max_think", unit: "tokens" } },
  "options.nothink_threshold": { key: "nothinkThreshold", label: { label: "nothink_threshold" } },
  maxCost: { key: "maxCost", label: { label: "Max cost" } },
  maxInputTokens: { key: "maxInputTokens", label: { label: "Max input tokens", unit: "tokens" } },
};

/** What the API says about a run's input in its own terms, tied to the form's fields and said the form's way. */
const RUN_RULES: ProblemRule[] = [
  {
    pattern: /^model "(.*)" is not one of server "(.*)"'s models/,
    field: "model",
    rewrite: (m) =>
      `The server “${m[2]}” does not offer the model “${m[1]}”; pick one of its models, or add this one to the server on the Servers page`,
  },
  {
    pattern: /^dataset "(.*)" does not exist/,
    field: "dataset",
    rewrite: (m) => `The dataset “${m[1]}” does not exist (any more); pick another`,
  },
  {
    pattern: /^server "(.*)" does not exist/,
    field: "serverId",
    rewrite: () => "This server does not exist (any more); pick another",
  },
  {
    pattern: /^dataset "(.*)" has no examples in the split\(s\) ([^;]*)/,
    field: "splits",
    rewrite: (m) =>
      `The dataset “${m[1]}” has no examples in the ${m[2].replace(/, /g, " and ")} split; pick others`,
  },
];

/**
 * The API's refusal of a run's input on the form's fields, rewritten ("body.limit must be >= 1" -> "Limit per split
 * must be at least 1 examples"), and the problems no field is for.
 */
export function runFormApiErrors(error: unknown): { errors: RunFormErrors; rest: string[] } {
  const labels = Object.fromEntries(Object.entries(RUN_FIELDS).map(([path, f]) => [path, f.label]));
  const { byField, rest } = fieldProblems(error, Object.keys(RUN_FIELDS), labels, RUN_RULES);
  const errors: RunFormErrors = {};
  for (const [path, text] of Object.entries(byField)) errors[RUN_FIELDS[path].key] = text;
  return { errors, rest };
}
