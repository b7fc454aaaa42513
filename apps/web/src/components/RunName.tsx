/**
 * A run's title on its page: the name people gave it (else "dataset on model"), its note, and an inline "Rename"
 * that opens a small form for both. Focus goes into the name field when the form opens, to the first field the API
 * refused when a save fails, and back to "Rename" when the form closes.
 */

import type { RunSummary } from "@decision-workbench/api/shapes";
import { type FormEvent, type KeyboardEvent, useEffect, useId, useRef, useState } from "react";
import { ApiError } from "../api/client";
import { useRenameRun } from "../api/runs";
import { Field } from "./Field";

/** The title a run without a name has: its dataset and model. */
function defaultRunTitle(run: Pick<RunSummary, "dataset" | "model">): string {
  return `${run.dataset} on ${run.model}`;
}

type LabelField = "name" | "note";

/** The API's `{field, message}` details of a refused name or note, by field. */
function fieldErrors(error: unknown): Partial<Record<LabelField, string>> {
  const out: Partial<Record<LabelField, string>> = {};
  if (!(error instanceof ApiError)) return out;
  for (const d of error.details) {
    const { field, message } = (d ?? {}) as { field?: unknown; message?: unknown };
    if ((field === "name" || field === "note") && typeof message === "string") {
      // "name has 81 characters; ..." reads as a sentence once it starts with a capital
      out[field] = message.charAt(0).toUpperCase() + message.slice(1);
    }
  }
  return out;
}

/** The form: name and note, Save and Cancel; `onClose` is called after a save or a cancel. */
function RenameForm({ run, onClose }: { run: RunSummary; onClose: () => void }) {
  const rename = useRenameRun();
  const [name, setName] = useState(run.name ?? "");
  const [note, setNote] = useState(run.note ?? "");
  const nameRef = useRef<HTMLInputElement>(null);
  const noteRef = useRef<HTMLTextAreaElement>(null);
  const errors = fieldErrors(rename.error);
  const other = rename.error && !errors.name && !errors.note ? (rename.error as Error) : null;

  useEffect(() => {
    nameRef.current?.focus();
    nameRef.current?.select();
  }, []);

  const submit = (e: FormEvent) => {
    e.preventDefault();
    rename.mutate(
      { id: run.id, name: name.trim() || null, note: note.trim() || null },
      {
        onSuccess: onClose,
        onError: (err) => {
          const refused = fieldErrors(err);
          if (refused.name) nameRef.current?.focus();
          else if (refused.note) noteRef.current?.focus();
        },
      },
    );
  };
  const closeOnEscape = (e: KeyboardEvent) => {
    if (e.key === "Escape") {
      e.preventDefault();
      onClose();
    }
  };

  return (
    <form
      className="panel"
      onSubmit={submit}
      onKeyDown={closeOnEscape}
      noValidate
      aria-label="Rename the run"
    >
      <div className="form-grid two">
        <Field
          label="Name"
          error={errors.name}
          hint={`Up to 80 characters. Leave it empty to show “${defaultRunTitle(run)}”.`}
        >
          {(a) => (
            <input
              {...a}
              ref={nameRef}
              name="name"
              value={name}
              placeholder={defaultRunTitle(run)}
              autoComplete="off"
              onChange={(e) => setName(e.target.value)}
            />
          )}
        </Field>
        <Field
          label="Note"
          error={errors.note}
          hint="Optional, up to 2,000 characters; shown in the runs list."
        >
          {(a) => (
            <textarea
              {...a}
              ref={noteRef}
              name="note"
              rows={2}
              value={note}
              style={{ fontFamily: "inherit", fontSize: "inherit" }}
              onChange={(e) => setNote(e.target.value)}
            />
          )}
        </Field>
      </div>
      {other && (
        <p className="field-error" role="alert">
          The name could not be saved: {other.message}
        </p>
      )}
      <div className="form-actions">
        <button type="submit" className="button primary" disabled={rename.isPending}>
          {rename.isPending ? "Saving…" : "Save"}
        </button>
        <button type="button" className="button" onClick={onClose}>
          Cancel
        </button>
      </div>
    </form>
  );
}

/** The run's title, its note, and the "Rename" button with the form it opens. */
export function RunName({ run }: { run: RunSummary }) {
  const [open, setOpen] = useState(false);
  const [closed, setClosed] = useState(false);
  const button = useRef<HTMLButtonElement>(null);
  const formId = useId();

  useEffect(() => {
    if (closed) {
      button.current?.focus();
      setClosed(false);
    }
  }, [closed]);

  return (
    <div style={{ minWidth: 0, flex: "1 1 360px" }}>
      <div style={{ display: "flex", alignItems: "baseline", gap: "4px 12px", flexWrap: "wrap" }}>
        <h1 style={{ overflowWrap: "anywhere" }}>
          {run.name ?? (
            <>
              {run.dataset} <span className="muted">on</span> {run.model}
            </>
          )}
        </h1>
        <button
          ref={button}
          type="button"
          className="link"
          aria-expanded={open}
          aria-controls={open ? formId : undefined}
          onClick={() => setOpen((o) => !o)}
        >
          Rename
        </button>
      </div>
      {run.name && (
        <p className="muted" style={{ margin: "2px 0 0" }}>
          {defaultRunTitle(run)}
        </p>
      )}
      {run.note && (
        <p style={{ margin: "6px 0 0", whiteSpace: "pre-line", overflowWrap: "anywhere", maxWidth: "75ch" }}>
          {run.note}
        </p>
      )}
      {open && (
        <div id={formId} style={{ marginTop: 10 }}>
          <RenameForm
            run={run}
            onClose={() => {
              setOpen(false);
              setClosed(true);
            }}
          />
        </div>
      )}
    </div>
  );
}
