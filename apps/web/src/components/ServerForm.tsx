/**
 * Add or edit a decision server. The API key field is write-only: the stored key is never shown. "Check server"
 * asks the server as typed for its models, which the Models field then offers to tick (a typed name still counts).
 * Every problem is a sentence on its field, all of them listed above the form; the form takes the focus when it
 * opens, and an invalid submit or check moves it to the first field concerned.
 */

import type { Server, ServerInput } from "@decision-workbench/api/shapes";
import { type FormEvent, useEffect, useId, useRef, useState } from "react";
import { ApiError } from "../api/client";
import { useCheckDraftServer } from "../api/serverDraftCheck";
import { useCheckServer } from "../api/servers";
import {
  checkRequest,
  firstInvalid,
  parseServerForm,
  SERVER_FIELD_ORDER,
  type ServerFormErrors,
  type ServerFormValues,
  serverFormApiErrors,
  serverFormValues,
  splitModels,
} from "../transforms/serverForm";
import { Field, FormErrors } from "./Field";
import { ProblemNote, problemSentence } from "./ProblemNote";
import { ServerCheckPanel } from "./ServerCheckPanel";
import "./ServerForm.css";

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
  /** The field a refused submit or check sends the focus to (a new object each time, so each refusal moves it). */
  const [focusTo, setFocusTo] = useState<{ field: keyof ServerFormValues } | null>(null);
  const form = useRef<HTMLFormElement>(null);
  const note = useRef<HTMLDivElement>(null);
  const listId = useId();
  const stored = useCheckServer();
  const draft = useCheckDraftServer();
  const check = stored.data ?? draft.data;
  const checkError = stored.error ?? draft.error;
  const checking = stored.isPending || draft.isPending;

  // the API's refusal of a save, placed on the fields it names; what names none is said above the buttons
  const placed =
    error instanceof ApiError && error.status !== 0
      ? serverFormApiErrors(error)
      : { errors: {} as ServerFormErrors, rest: [] as string[] };
  const shown: ServerFormErrors = { ...placed.errors, ...errors };
  const general =
    error !== undefined && error !== null && placed.rest.length === 0 && !Object.keys(placed.errors).length
      ? [
          problemSentence(
            error,
            "The server could not be saved; the details say what the workbench answered.",
          ),
        ]
      : placed.rest;

  // the form takes the focus when it opens (Add server, Edit), so keyboard users start in it
  useEffect(() => {
    const name = form.current?.elements.namedItem("name");
    if (name instanceof HTMLElement) name.focus();
  }, []);

  useEffect(() => {
    const el = focusTo ? form.current?.elements.namedItem(focusTo.field) : null;
    if (el instanceof HTMLElement) el.focus();
  }, [focusTo]);

  useEffect(() => {
    if (error === undefined || error === null) return;
    const first = firstInvalid(placed.errors);
    const el = first ? form.current?.elements.namedItem(first) : null;
    if (el instanceof HTMLElement) el.focus();
    else note.current?.focus();
    // placed is derived from error: only a new error moves the focus
  }, [error]);

  const set = <K extends keyof ServerFormValues>(k: K, value: ServerFormValues[K]) => {
    setV((old) => ({ ...old, [k]: value }));
    // a check speaks for the address and key it was sent with: another one makes its model list stale
    if (k === "baseUrl" || k === "apiKey" || k === "clearKey") {
      stored.reset();
      draft.reset();
    }
  };
  const refuse = (e: ServerFormErrors, field = firstInvalid(e)) => {
    setErrors(e);
    if (field) setFocusTo({ field });
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const r = parseServerForm(v, server);
    if (!r.ok) return refuse(r.errors);
    setErrors({});
    onSubmit(r.input);
  };
  const runCheck = () => {
    const r = checkRequest(v, server);
    if (!r.ok) return refuse({ ...errors, ...r.errors }, "baseUrl");
    setErrors(({ baseUrl: _, ...rest }) => rest);
    stored.reset();
    draft.reset();
    if ("stored" in r) stored.mutate(r.stored);
    else draft.mutate(r.draft);
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
    <Field label={label} error={shown[name]} hint={o.hint}>
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
  const listed = check?.models ?? [];
  // every field's problem, listed once above the form (what names no field is said once, above the buttons)
  const problems = SERVER_FIELD_ORDER.map((k) => shown[k]).filter((x): x is string => !!x);
  return (
    <form
      ref={form}
      className="form server-form"
      onSubmit={submit}
      noValidate
      aria-label={server ? `Edit ${server.name}` : "Add a server"}
    >
      <FormErrors errors={problems} />
      <div className="form-grid">
        <Field label="Name" error={shown.name}>
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
        <Field label="Base URL" error={shown.baseUrl} hint="Without /v1/decision, e.g. http://127.0.0.1:8009">
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
        <div className="field">
          <Field label="API key" error={shown.apiKey} hint={keyHint}>
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
                onChange={(e) => {
                  set("clearKey", e.target.checked);
                  set("apiKey", "");
                }}
              />
              Remove the stored key
            </label>
          )}
        </div>
        <div className="server-models">
          <Field
            label="Models"
            error={shown.models}
            hint={
              listed.length
                ? "Tick the models below, or type names separated by commas."
                : "The model names the server accepts, separated by commas. “Check server” lists them."
            }
          >
            {(a) => (
              <input
                {...a}
                name="models"
                value={v.models}
                onChange={(e) => set("models", e.target.value)}
                placeholder="workbench-latest"
                autoComplete="off"
                list={listed.length ? listId : undefined}
              />
            )}
          </Field>
          {listed.length > 0 && (
            <datalist id={listId}>
              {listed.map((m) => (
                <option key={m.name} value={m.name} />
              ))}
            </datalist>
          )}
          <div className="server-check-row">
            <button type="button" className="button" onClick={runCheck} disabled={checking}>
              {checking ? "Checking…" : "Check server"}
            </button>
            <span className="hint">Asks the base URL above for its models and sends one test question.</span>
          </div>
          {checkError && (
            <ProblemNote
              title="The check could not run"
              sentences={[
                problemSentence(checkError, "Nothing was asked of the server; the details say why."),
              ]}
              error={checkError}
            />
          )}
          {check && (
            <ServerCheckPanel
              check={check}
              chosen={splitModels(v.models)}
              onPick={(models) => set("models", models.join(", "))}
            />
          )}
        </div>
        {numberField("timeout", "Timeout (s)", { hint: "Up to 3,600 seconds a request." })}
        {numberField("retries", "Retries", { inputMode: "numeric", hint: "0 to 20 more attempts." })}
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
          error={shown.extraBody}
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
        <ProblemNote
          ref={note}
          title="The server was not saved"
          sentences={general.length ? general : ["Fix the fields marked above, then save again."]}
          error={error}
        />
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
