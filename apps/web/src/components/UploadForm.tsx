/**
 * Dataset upload: the task built in a form (or given as JSON), example templates made from it, and the examples
 * (JSONL or CSV). Every problem is shown once: a task's on its field, the examples' by line; nothing is stored
 * when there is any.
 */

import type { Task } from "@decision-workbench/api/shapes";
import { type FormEvent, useEffect, useRef, useState } from "react";
import { ApiError } from "../api/client";
import { formatOf, formatValidationError } from "../transforms/datasets";
import {
  type BuilderErrors,
  type BuilderValues,
  builderFromJson,
  buildTask,
  csvTemplate,
  emptyBuilder,
  jsonlTemplate,
  placeUploadError,
  taskOf,
} from "../transforms/taskBuilder";
import { Field } from "./Field";
import { FileOrTextField } from "./FileOrTextField";
import { focusFirstInvalid } from "./focusInvalid";
import { ErrorState } from "./States";
import { TaskBuilder } from "./TaskBuilder";

type Format = "jsonl" | "csv";

/** Saves a text as a file through a download link. */
function download(filename: string, text: string, type: string): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = document.createElement("a");
  a.href = url;
  a.download = filename;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/**
 * The form's own problems: the builder's, the task JSON's when it was typed and is not a task, and (when the
 * examples are given as `content`, "" for none yet) missing examples.
 */
function problems(
  values: BuilderValues,
  jsonError: string | undefined,
  content: string | false,
): BuilderErrors {
  const r = buildTask(values);
  const found: BuilderErrors = r.ok ? {} : { ...r.errors };
  if (jsonError) found.taskJson = jsonError;
  if (content !== false && !content.trim())
    found.content = "Paste or choose the examples (a JSONL or CSV file made from a template above).";
  return found;
}

/** The form; the page passes the API's refusal back as `error`. */
export function UploadForm({
  onSubmit,
  submitting,
  error,
}: {
  onSubmit: (body: { task: Task; format: Format; content: string }) => void;
  submitting?: boolean;
  error?: unknown;
}) {
  const [values, setValues] = useState<BuilderValues>(emptyBuilder);
  // the task JSON as typed or chosen, until the builder is edited again (null: the builder's own)
  const [jsonText, setJsonText] = useState<string | null>(null);
  const [jsonError, setJsonError] = useState<string | undefined>();
  const [jsonOpen, setJsonOpen] = useState(false);
  const [content, setContent] = useState("");
  const [format, setFormat] = useState<Format>("jsonl");
  // after an upload or template was asked for: the form's own problems, kept up to date as they are fixed
  const [tried, setTried] = useState<"task" | "all" | null>(null);
  // the API's refusal whose task problems were edited since (no longer shown on the fields)
  const [edited, setEdited] = useState<unknown>();
  const [focusTick, setFocusTick] = useState(0);
  const form = useRef<HTMLFormElement>(null);

  useEffect(() => {
    if (focusTick === 0) return;
    if (!focusFirstInvalid(form.current)) form.current?.querySelector<HTMLElement>('[role="alert"]')?.focus();
  }, [focusTick]);
  useEffect(() => {
    if (error) setFocusTick((t) => t + 1);
  }, [error]);

  const apiError = error instanceof ApiError ? error : undefined;
  const placed = apiError ? placeUploadError(apiError, values) : undefined;
  const apiFields = placed && error !== edited ? placed.fields : {};
  const local = tried
    ? problems(values, jsonText === null ? undefined : jsonError, tried === "all" && content)
    : {};
  const errors: BuilderErrors = { ...apiFields, ...local };

  const editBuilder = (v: BuilderValues) => {
    setValues(v);
    setJsonText(null);
    setJsonError(undefined);
    setEdited(error);
  };
  const editJson = (text: string) => {
    setJsonText(text);
    const r = builderFromJson(text);
    if (r.ok) {
      setValues(r.values);
      setJsonError(undefined);
      setEdited(error);
    } else setJsonError(r.error);
  };
  /** The task when the builder, the JSON and (for "all") the examples are complete; else null, problems shown. */
  const checked = (what: "task" | "all"): Task | null => {
    const r = buildTask(values);
    const found = problems(values, jsonText === null ? undefined : jsonError, what === "all" && content);
    if (found.taskJson) setJsonOpen(true);
    if (!r.ok || Object.keys(found).length > 0) {
      setTried(what);
      setFocusTick((t) => t + 1);
      return null;
    }
    setTried(null);
    return r.task;
  };
  const template = (kind: Format) => {
    const task = checked("task");
    if (!task) return;
    if (kind === "jsonl") download(`${task.name}.jsonl`, jsonlTemplate(task), "application/x-ndjson");
    else download(`${task.name}.csv`, csvTemplate(task), "text/csv");
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const task = checked("all");
    if (!task) return;
    setEdited(undefined);
    onSubmit({ task, format, content });
  };

  const localCount = Object.keys(local).length;
  return (
    <form ref={form} className="form upload-form" onSubmit={submit} noValidate aria-label="Upload a dataset">
      <section className="upload-step" aria-labelledby="upload-task-head">
        <h3 id="upload-task-head">1. The task</h3>
        <TaskBuilder values={values} errors={errors} onChange={editBuilder} />
        <details className="task-json" open={jsonOpen} onToggle={(e) => setJsonOpen(e.currentTarget.open)}>
          <summary>Task JSON</summary>
          <FileOrTextField
            label="Task definition (JSON)"
            hint="The form above as the API receives it. Paste or choose a task file to fill the form from it."
            error={errors.taskJson}
            name="task"
            rows={10}
            accept=".json,application/json"
            chooseLabel="Choose a task file"
            value={jsonText ?? JSON.stringify(taskOf(values), null, 2)}
            onChange={editJson}
          />
        </details>
      </section>
      <section className="upload-step" aria-labelledby="upload-examples-head">
        <h3 id="upload-examples-head">2. The examples</h3>
        <div className="upload-templates">
          <span>Start from a template made from the items above:</span>
          <button type="button" className="button" onClick={() => template("jsonl")}>
            Download JSONL template
          </button>
          <button type="button" className="button" onClick={() => template("csv")}>
            Download CSV template
          </button>
        </div>
        <div className="upload-examples">
          <FileOrTextField
            label="Examples"
            hint={
              format === "csv"
                ? "CSV: a header row with id, state (or state.<field> columns for a record of fields) and one column an item (multi-label: options joined by |), then one example a row. An optional split column (train, calibration or test) decides the split; without it the id does."
                : 'JSONL: one {"id", "state", "labels"} object a line; "state" is the text (or an object of fields) the service reads, "labels" gives each item its option ("not stated" where allowed; a list for multi-label). An optional "split" (train, calibration or test) decides the split; without it the id does.'
            }
            error={errors.content}
            name="content"
            accept=".jsonl,.ndjson,.json,.csv,text/csv"
            chooseLabel="Choose an examples file"
            value={content}
            onChange={setContent}
            onFileName={(name) => setFormat((o) => formatOf(name) ?? o)}
          />
          <Field label="Format">
            {(a) => (
              <select
                {...a}
                name="format"
                value={format}
                onChange={(e) => setFormat(e.target.value as Format)}
              >
                <option value="jsonl">JSONL</option>
                <option value="csv">CSV</option>
              </select>
            )}
          </Field>
        </div>
      </section>
      {localCount > 0 ? (
        <div className="form-errors" role="alert" tabIndex={-1}>
          <strong>
            {localCount === 1 ? "One thing to fix" : `${localCount} things to fix`} before uploading; each is
            marked on its field.
          </strong>
        </div>
      ) : placed?.summary ? (
        <div className="form-errors" role="alert" tabIndex={-1}>
          <strong>{placed.summary}</strong>
          {placed.listed.length > 0 && (
            <ol className="error-lines">
              {placed.listed.map((e, i) => (
                <li key={i}>{formatValidationError(e)}</li>
              ))}
            </ol>
          )}
        </div>
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
