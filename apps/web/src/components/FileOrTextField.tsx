/** A labelled text box that is typed, pasted or filled from a chosen file (a task, examples, a calibration file). */
import type { ReactNode, Ref } from "react";
import { Field } from "./Field";

/**
 * The chooser above the text box, both under one label: a chosen file's text replaces the box's (through
 * `onChange`), and `onFileName` hears the file's name.
 */
export function FileOrTextField({
  label,
  hint,
  error,
  name,
  rows = 8,
  accept,
  chooseLabel,
  value,
  onChange,
  onFileName,
  chooserRef,
}: {
  label: string;
  hint?: ReactNode;
  error?: string;
  /** The text box's name. */
  name: string;
  rows?: number;
  /** The file types offered, e.g. ".json,application/json". */
  accept: string;
  /** The chooser's accessible name, e.g. "Choose a task file". */
  chooseLabel: string;
  value: string;
  onChange: (text: string) => void;
  onFileName?: (name: string) => void;
  chooserRef?: Ref<HTMLInputElement>;
}) {
  return (
    <Field label={label} hint={hint} error={error}>
      {(a) => (
        <>
          <input
            ref={chooserRef}
            type="file"
            accept={accept}
            aria-label={chooseLabel}
            onChange={async (e) => {
              const f = e.target.files?.[0];
              if (!f) return;
              onChange(await f.text());
              onFileName?.(f.name);
            }}
          />
          <textarea
            {...a}
            name={name}
            rows={rows}
            value={value}
            onChange={(e) => onChange(e.target.value)}
            spellCheck={false}
          />
        </>
      )}
    </Field>
  );
}
