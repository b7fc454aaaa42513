/** The new-run form (presentational): dataset, server, model, splits, concurrency, limit, server options. */
import { CONCURRENCY } from "@decision-workbench/api/limits";
import type { DatasetSummary, RunInput, Server, Split } from "@decision-workbench/api/shapes";
import { type FormEvent, type ReactNode, useEffect, useMemo, useRef, useState } from "react";
import { count } from "../transforms/format";
import {
  parseRunForm,
  type RunFormErrors,
  type RunFormValues,
  runFormApiErrors,
  runSize,
} from "../transforms/runForm";
import { Field, FormErrors } from "./Field";
import { focusFirstInvalid } from "./focusInvalid";
import { ErrorState, TechnicalDetails } from "./States";

const SPLITS: { id: Split; label: string; hint: string }[] = [
  { id: "calibration", label: "calibration", hint: "fit calibrators here" },
  { id: "test", label: "test", hint: "check them here" },
  { id: "train", label: "train", hint: "what the checkpoints learned from" },
];

/**
 * The form; `onSubmit` gets a checked POST /api/runs body. Its own checks and the API's refusal (`error`) are shown on
 * the fields they concern, all of them listed above, and focus moves to the first invalid field.
 */
export function RunForm({
  datasets,
  servers,
  initial,
  onSubmit,
  submitting,
  error,
  submitLabel = "Start run",
  estimate,
}: {
  datasets: DatasetSummary[];
  servers: Server[];
  initial: RunFormValues;
  onSubmit: (input: RunInput) => void;
  submitting?: boolean;
  error?: unknown;
  submitLabel?: string;
  /** Shows what the run would send (tokens, cost) for the form's input while it is valid. */
  estimate?: (input: RunInput) => ReactNode;
}) {
  const [v, setV] = useState<RunFormValues>(initial);
  const [checked, setChecked] = useState<RunFormErrors>({});
  // fields changed since the API's refusal `error`: their API error is no longer shown
  const [changed, setChanged] = useState<{ after: unknown; keys: ReadonlySet<string> }>({
    after: error,
    keys: new Set(),
  });
  const edited = changed.after === error ? changed.keys : new Set<string>();
  const [attempt, setAttempt] = useState(0);
  const formRef = useRef<HTMLFormElement>(null);
  const refused = useMemo(() => runFormApiErrors(error), [error]);
  const set = <K extends keyof RunFormValues>(k: K, value: RunFormValues[K]) => {
    setV((old) => ({ ...old, [k]: value }));
    setChanged((old) => ({ after: error, keys: new Set(old.after === error ? old.keys : []).add(k) }));
  };
  const fromApi = Object.fromEntries(
    Object.entries(refused.errors).filter(([k]) => !edited.has(k)),
  ) as RunFormErrors;
  const errors: RunFormErrors = { ...fromApi, ...checked };
  const apiOnFields = Object.keys(refused.errors).length > 0;
  // a refused submit, here or by the API, focuses the first invalid field
  useEffect(() => {
    if (attempt > 0 || error) focusFirstInvalid(formRef.current);
  }, [attempt, error]);
  const server = servers.find((s) => s.id === v.serverId);
  const dataset = datasets.find((d) => d.name === v.dataset);

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const r = parseRunForm(v, datasets, servers);
    setAttempt((n) => n + 1);
    if (!r.ok) {
      setChecked(r.errors);
      return;
    }
    setChecked({});
    onSubmit(r.input);
  };

  const size = runSize(v, dataset);
  const parsed = estimate ? parseRunForm(v, datasets, servers) : null;
  return (
    <form ref={formRef} className="form run-form" onSubmit={submit} noValidate aria-label="New run">
      <FormErrors
        errors={[
          ...Object.values(errors).filter((x): x is string => !!x),
          ...(apiOnFields ? refused.rest : []),
        ]}
      >
        {apiOnFields && Object.keys(fromApi).length > 0 && <TechnicalDetails error={error} />}
      </FormErrors>
      <div className="form-grid">
        <Field
          label="Dataset"
          error={errors.dataset}
          hint={
            dataset?.description
              ? dataset.description.slice(0, 160) + (dataset.description.length > 160 ? "…" : "")
              : undefined
          }
        >
          {(a) => (
            <select {...a} name="dataset" value={v.dataset} onChange={(e) => set("dataset", e.target.value)}>
              {v.dataset === "" && <option value="">Pick a dataset</option>}
              {datasets.map((d) => (
                <option key={d.name} value={d.name}>
                  {d.name} · {count(d.examples)} examples{d.source === "upload" ? " · uploaded" : ""}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label="Decision server" error={errors.serverId} hint={server ? server.endpoint : undefined}>
          {(a) => (
            <select
              {...a}
              name="server"
              value={v.serverId}
              onChange={(e) => {
                const s = servers.find((x) => x.id === e.target.value);
                setV((old) => ({
                  ...old,
                  serverId: e.target.value,
                  model: s?.models.includes(old.model) ? old.model : (s?.models[0] ?? ""),
                }));
              }}
            >
              {v.serverId === "" && <option value="">Pick a server</option>}
              {servers.map((s) => (
                <option key={s.id} value={s.id}>
                  {s.name}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field
          label="Model"
          error={errors.model}
          hint="The name the server is asked for; an alias such as workbench-latest may be served by another checkpoint."
        >
          {(a) => (
            <select {...a} name="model" value={v.model} onChange={(e) => set("model", e.target.value)}>
              {(server?.models ?? []).map((m) => (
                <option key={m} value={m}>
                  {m}
                </option>
              ))}
              {server && !server.models.includes(v.model) && v.model && (
                <option value={v.model}>{v.model}</option>
              )}
            </select>
          )}
        </Field>
        <fieldset className="field" aria-describedby={errors.splits ? "splits-error" : undefined}>
          <legend>Splits</legend>
          <div className="checks">
            {SPLITS.map((s) => (
              <label key={s.id} className="check">
                <input
                  type="checkbox"
                  aria-invalid={errors.splits ? true : undefined}
                  aria-describedby={errors.splits ? "splits-error" : undefined}
                  name="splits"
                  value={s.id}
                  checked={v.splits.includes(s.id)}
                  onChange={(e) =>
                    set("splits", e.target.checked ? [...v.splits, s.id] : v.splits.filter((x) => x !== s.id))
                  }
                />
                {s.label}
                {dataset && <span className="muted"> ({count(dataset.splits[s.id])})</span>}
                <span className="muted small"> — {s.hint}</span>
              </label>
            ))}
          </div>
          {errors.splits && (
            <div className="field-error" id="splits-error">
              {errors.splits}
            </div>
          )}
        </fieldset>
        <Field
          label="Concurrency"
          error={errors.concurrency}
          hint={`Requests in flight at once (${CONCURRENCY.min} to ${CONCURRENCY.max}).`}
        >
          {(a) => (
            <input
              {...a}
              name="concurrency"
              inputMode="numeric"
              value={v.concurrency}
              onChange={(e) => set("concurrency", e.target.value)}
            />
          )}
        </Field>
        <Field
          label="Max cost"
          error={errors.maxCost}
          hint="The run stops (resumable) before a request would take its cost past this. Empty: no cap."
        >
          {(a) => (
            <input
              {...a}
              name="maxCost"
              inputMode="decimal"
              placeholder="no cap"
              value={v.maxCost ?? ""}
              onChange={(e) => set("maxCost", e.target.value)}
            />
          )}
        </Field>
        <Field
          label="Max input tokens"
          error={errors.maxInputTokens}
          hint="The same for its input tokens. Empty: no cap."
        >
          {(a) => (
            <input
              {...a}
              name="maxInputTokens"
              inputMode="numeric"
              placeholder="no cap"
              value={v.maxInputTokens ?? ""}
              onChange={(e) => set("maxInputTokens", e.target.value)}
            />
          )}
        </Field>
        <Field
          label="Limit per split"
          error={errors.limit}
          hint="First N examples of each split, for a quick look. Empty: all."
        >
          {(a) => (
            <input
              {...a}
              name="limit"
              inputMode="numeric"
              placeholder="all"
              value={v.limit}
              onChange={(e) => set("limit", e.target.value)}
            />
          )}
        </Field>
      </div>
      <details className="advanced">
        <summary>Server options</summary>
        <div className="form-grid">
          <Field label="max_think" error={errors.maxThink} hint="Bound on reasoning tokens (a whole number).">
            {(a) => (
              <input
                {...a}
                name="max_think"
                inputMode="numeric"
                value={v.maxThink}
                onChange={(e) => set("maxThink", e.target.value)}
              />
            )}
          </Field>
          <Field
            label="nothink_threshold"
            error={errors.nothinkThreshold}
            hint="Skip thinking when the no-think top probability reaches this (0 to 1)."
          >
            {(a) => (
              <input
                {...a}
                name="nothink_threshold"
                inputMode="decimal"
                value={v.nothinkThreshold}
                onChange={(e) => set("nothinkThreshold", e.target.value)}
              />
            )}
          </Field>
          <Field label="think" hint="Whether the service may reason before answering.">
            {(a) => (
              <select
                {...a}
                name="think"
                value={v.think}
                onChange={(e) => set("think", e.target.value as RunFormValues["think"])}
              >
                <option value="default">server default</option>
                <option value="on">on</option>
                <option value="off">off</option>
              </select>
            )}
          </Field>
          <Field
            label="Max state length"
            error={errors.maxLen}
            hint="Characters of a long state kept by retrieval. Empty: no limit."
          >
            {(a) => (
              <input
                {...a}
                name="maxLen"
                inputMode="numeric"
                value={v.maxLen}
                onChange={(e) => set("maxLen", e.target.value)}
              />
            )}
          </Field>
          <label className="check">
            <input
              type="checkbox"
              name="return_reasoning"
              checked={v.returnReasoning}
              onChange={(e) => set("returnReasoning", e.target.checked)}
            />
            return_reasoning{" "}
            <span className="muted small">— keep the service's reasoning for the Items view</span>
          </label>
        </div>
      </details>
      {error !== undefined && error !== null && !apiOnFields && (
        <ErrorState error={error} title="The run could not be started" />
      )}
      <div className="form-actions">
        <button type="submit" className="button primary" disabled={submitting}>
          {submitting ? "Starting…" : submitLabel}
        </button>
        {size > 0 && <span className="muted">{count(size)} examples will be asked about.</span>}
      </div>
      {/* no estimate of an input the API has just refused: its reasons are on the fields */}
      {estimate && parsed?.ok && Object.keys(fromApi).length === 0 && estimate(parsed.input)}
    </form>
  );
}
