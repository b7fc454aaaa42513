/** Dataset upload: task JSON and examples (JSONL or CSV); errors listed by line, nothing stored when any. */

import type { Task } from "@decision-workbench/api/shapes";
import { type ChangeEvent, type FormEvent, useState } from "react";
import { ApiError } from "../api/client";
import {
  formatOf,
  formatValidationError,
  parseUpload,
  type UploadValues,
  type ValidationError,
  validationErrors,
} from "../transforms/datasets";
import { Field } from "./Field";
import { ErrorState } from "./States";

async function readFile(e: ChangeEvent<HTMLInputElement>): Promise<{ name: string; text: string } | null> {
  const f = e.target.files?.[0];
  if (!f) return null;
  return { name: f.name, text: await f.text() };
}

/** The API's message as it is, with "Nothing was stored." added when the message does not say so already. */
function uploadErrorTitle(error: unknown): string {
  const message = error instanceof Error ? error.message : "The dataset has errors.";
  return /nothing (was )?(imported|stored)/i.test(message) ? message : `${message} Nothing was stored.`;
}

/** A list of located errors. */
function ValidationList({ errors, title }: { errors: ValidationError[]; title: string }) {
  return (
    <div className="form-errors" role="alert">
      <strong>{title}</strong>
      <ol className="error-lines">
        {errors.map((e, i) => (
          <li key={i}>{formatValidationError(e)}</li>
        ))}
      </ol>
    </div>
  );
}

/** The form; `onSubmit` returns the API's promise so its validation errors can be listed. */
export function UploadForm({
  onSubmit,
  submitting,
  error,
}: {
  onSubmit: (body: { task: Task; format: "jsonl" | "csv"; content: string }) => void;
  submitting?: boolean;
  error?: unknown;
}) {
  const [v, setV] = useState<UploadValues>({ taskText: "", format: "jsonl", content: "" });
  const [local, setLocal] = useState<ValidationError[]>([]);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const r = parseUpload(v);
    if (!r.ok) {
      setLocal(r.errors);
      return;
    }
    setLocal([]);
    onSubmit(r.body);
  };
  const apiErrors = error instanceof ApiError ? validationErrors(error.details) : [];
  return (
    <form className="form" onSubmit={submit} noValidate aria-label="Upload a dataset">
      {local.length > 0 && <ValidationList errors={local} title="Fix these before uploading:" />}
      <div className="form-grid two">
        <Field
          label="Task definition (JSON)"
          hint="name, description, provenance and items, as in datasets/tasks/*.json"
        >
          {(a) => (
            <>
              <input
                type="file"
                accept=".json,application/json"
                aria-label="Choose a task file"
                onChange={async (e) => {
                  const f = await readFile(e);
                  if (f) setV((o) => ({ ...o, taskText: f.text }));
                }}
              />
              <textarea
                {...a}
                name="task"
                rows={8}
                value={v.taskText}
                onChange={(e) => setV((o) => ({ ...o, taskText: e.target.value }))}
                spellCheck={false}
              />
            </>
          )}
        </Field>
        <Field
          label="Examples"
          hint="JSONL: one {id?, state, labels, split?} per line. CSV: a header row; label columns named after the items."
        >
          {(a) => (
            <>
              <input
                type="file"
                accept=".jsonl,.ndjson,.json,.csv,text/csv"
                aria-label="Choose an examples file"
                onChange={async (e) => {
                  const f = await readFile(e);
                  if (f) setV((o) => ({ ...o, content: f.text, format: formatOf(f.name) ?? o.format }));
                }}
              />
              <textarea
                {...a}
                name="content"
                rows={8}
                value={v.content}
                onChange={(e) => setV((o) => ({ ...o, content: e.target.value }))}
                spellCheck={false}
              />
            </>
          )}
        </Field>
        <Field label="Format">
          {(a) => (
            <select
              {...a}
              name="format"
              value={v.format}
              onChange={(e) => setV((o) => ({ ...o, format: e.target.value as "jsonl" | "csv" }))}
            >
              <option value="jsonl">JSONL</option>
              <option value="csv">CSV</option>
            </select>
          )}
        </Field>
      </div>
      {apiErrors.length > 0 ? (
        <ValidationList errors={apiErrors} title={uploadErrorTitle(error)} />
      ) : (
        error !== undefined &&
        error !== null && <ErrorState error={error} title="The dataset was not uploaded" />
      )}
      <div className="form-actions">
        <button type="submit" className="button primary" disabled={submitting}>
          {submitting ? "Checking…" : "Upload"}
        </button>
      </div>
    </form>
  );
}
