/** Form fields with visible labels, hints and errors wired for screen readers. */
import { type ReactNode, useId } from "react";

interface FieldProps {
  label: string;
  hint?: ReactNode;
  error?: string;
  children: (props: { id: string; "aria-describedby"?: string; "aria-invalid"?: boolean }) => ReactNode;
}

/** A labelled control: `children` receives the id and aria attributes to put on the control. */
export function Field({ label, hint, error, children }: FieldProps) {
  const id = useId();
  const hintId = hint ? `${id}-hint` : undefined;
  const errorId = error ? `${id}-error` : undefined;
  const describedBy = [hintId, errorId].filter(Boolean).join(" ") || undefined;
  return (
    <div className={`field${error ? " field-invalid" : ""}`}>
      <label htmlFor={id}>{label}</label>
      {children({ id, "aria-describedby": describedBy, "aria-invalid": error ? true : undefined })}
      {hint && (
        <div className="hint" id={hintId}>
          {hint}
        </div>
      )}
      {error && (
        <div className="field-error" id={errorId}>
          {error}
        </div>
      )}
    </div>
  );
}

/**
 * A summary of a form's errors, announced when it appears (the form moves focus to the first invalid field);
 * `children` (e.g. the API's technical details) go under the list.
 */
export function FormErrors({ errors, children }: { errors: string[]; children?: ReactNode }) {
  if (errors.length === 0) return null;
  return (
    <div className="form-errors" role="alert">
      <strong>
        {errors.length === 1 ? "One thing to fix" : `${errors.length} things to fix`} before this can be sent:
      </strong>
      <ul>
        {errors.map((e) => (
          <li key={e}>{e}</li>
        ))}
      </ul>
      {children}
    </div>
  );
}
