/** Add or edit a decision server. The API key field is write-only: the stored key is never shown. */

import type { Server, ServerInput } from "@decision-workbench/api/shapes";
import { type FormEvent, useState } from "react";
import {
  parseServerForm,
  type ServerFormErrors,
  type ServerFormValues,
  serverFormValues,
} from "../transforms/serverForm";
import { Field, FormErrors } from "./Field";
import { ErrorState } from "./States";

/** The fields typed as numbers. */
type NumberName =
  | "timeout"
  | "retries"
  | "backoff"
  | "requestsPerMinute"
  | "inputTokensPerMinute"
  | "inputPricePerMillion"
  | "outputPricePerMillion";

/** The form; `onSubmit` gets the checked body (for an edit, the key only when it changes). */
export function ServerForm({
  server,
  onSubmit,
  onCancel,
  submitting,
  error,
}: {
  server?: Server;
  onSubmit: (input: Partial<ServerInput>) => void;
  onCancel?: () => void;
  submitting?: boolean;
  error?: unknown;
}) {
  const [v, setV] = useState<ServerFormValues>(() => serverFormValues(server));
  const [errors, setErrors] = useState<ServerFormErrors>({});
  const set = <K extends keyof ServerFormValues>(k: K, value: ServerFormValues[K]) =>
    setV((old) => ({ ...old, [k]: value }));
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const r = parseServerForm(v, server);
    if (!r.ok) {
      setErrors(r.errors);
      return;
    }
    setErrors({});
    onSubmit(r.input);
  };
  const keyHint = server?.hasApiKey
    ? v.clearKey
      ? "The stored key will be removed."
      : "Key set. Leave empty to keep it; type a new key to replace it."
    : "Sent as “Authorization: Bearer …”. Stored encrypted; never shown again.";
  /** A text box for one of the form's numbers, typed as text and checked by parseServerForm. */
  const numberField = (
    name: NumberName,
    label: string,
    o: { hint?: string; placeholder?: string; inputMode?: "decimal" | "numeric" } = {},
  ) => (
    <Field label={label} error={errors[name]} hint={o.hint}>
      {(a) => (
        <input
          {...a}
          name={name}
          inputMode={o.inputMode ?? "decimal"}
          value={v[name]}
          onChange={(e) => set(name, e.target.value)}
          placeholder={o.placeholder}
        />
      )}
    </Field>
  );
  return (
    <form
      className="form"
      onSubmit={submit}
      noValidate
      aria-label={server ? `Edit ${server.name}` : "Add a server"}
    >
      <FormErrors errors={Object.values(errors).filter((x): x is string => !!x)} />
      <div className="form-grid">
        <Field label="Name" error={errors.name}>
          {(a) => (
            <input
              {...a}
              name="name"
              value={v.name}
              onChange={(e) => set("name", e.target.value)}
              autoComplete="off"
            />
          )}
        </Field>
        <Field
          label="Base URL"
          error={errors.baseUrl}
          hint="Without /v1/decision, e.g. http://127.0.0.1:8009"
        >
          {(a) => (
            <input
              {...a}
              name="baseUrl"
              type="url"
              value={v.baseUrl}
              onChange={(e) => set("baseUrl", e.target.value)}
              placeholder="https://"
              autoComplete="off"
            />
          )}
        </Field>
        <Field
          label="Models"
          error={errors.models}
          hint="Comma or line separated: the names the server accepts as `model`."
        >
          {(a) => (
            <input
              {...a}
              name="models"
              value={v.models}
              onChange={(e) => set("models", e.target.value)}
              placeholder="workbench-latest"
              autoComplete="off"
            />
          )}
        </Field>
        <div className="field">
          <Field label="API key" error={errors.apiKey} hint={keyHint}>
            {(a) => (
              <div className="key-field">
                <input
                  {...a}
                  name="apiKey"
                  type="password"
                  value={v.apiKey}
                  disabled={v.clearKey}
                  onChange={(e) => set("apiKey", e.target.value)}
                  placeholder={server?.hasApiKey ? "key set" : "no key"}
                  autoComplete="new-password"
                  spellCheck={false}
                />
                {server?.hasApiKey && <span className="badge badge-done">key set</span>}
              </div>
            )}
          </Field>
          {server?.hasApiKey && (
            <label className="check">
              <input
                type="checkbox"
                name="clearKey"
                checked={v.clearKey}
                onChange={(e) => setV((old) => ({ ...old, clearKey: e.target.checked, apiKey: "" }))}
              />
              Remove the stored key
            </label>
          )}
        </div>
        {numberField("timeout", "Timeout (s)")}
        {numberField("retries", "Retries", { inputMode: "numeric" })}
        {numberField("backoff", "Backoff (s)", { hint: "Waits backoff × 2^k between attempts." })}
        {numberField("requestsPerMinute", "Requests a minute", {
          hint: "The server's rate limit; every run on it shares it. Empty: no limit.",
          placeholder: "no limit",
        })}
        {numberField("inputTokensPerMinute", "Input tokens a minute", {
          hint: "Estimated as (words + punctuation) × 1.3 before sending. Empty: no limit.",
          placeholder: "no limit",
        })}
        {numberField("inputPricePerMillion", "Input price per million tokens", {
          hint: "Runs on this server show an estimated cost before they start. Empty: no price.",
          placeholder: "no price",
        })}
        {numberField("outputPricePerMillion", "Output price per million tokens", {
          hint: "A reply's own cost is used when it has one. Empty: no price.",
          placeholder: "no price",
        })}
        <Field
          label="Extra body (JSON)"
          error={errors.extraBody}
          hint='Merged into every request, e.g. {"options": {"max_think": 256}}'
        >
          {(a) => (
            <textarea
              {...a}
              name="extraBody"
              rows={3}
              value={v.extraBody}
              onChange={(e) => set("extraBody", e.target.value)}
              spellCheck={false}
            />
          )}
        </Field>
        <label className="check">
          <input
            type="checkbox"
            name="deterministic"
            checked={v.deterministic}
            onChange={(e) => set("deterministic", e.target.checked)}
          />
          Deterministic{" "}
          <span className="muted small">
            — the same request always gets the same reply (enables replay checks)
          </span>
        </label>
      </div>
      {error !== undefined && error !== null && (
        <ErrorState error={error} title="The server could not be saved" />
      )}
      <div className="form-actions">
        <button type="submit" className="button primary" disabled={submitting}>
          {submitting ? "Saving…" : server ? "Save changes" : "Add server"}
        </button>
        {onCancel && (
          <button type="button" className="button" onClick={onCancel}>
            Cancel
          </button>
        )}
      </div>
    </form>
  );
}
