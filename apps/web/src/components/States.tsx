/** Loading, error and empty states: designed, never a blank area. */
import { type FormEvent, type ReactNode, useState } from "react";
import { ApiError } from "../api/client";
import { getToken, setToken } from "../api/token";
import { formatValidationError, validationErrors } from "../transforms/datasets";

/** Asks for the bearer token the workbench was started with (shown on a 401 "unauthorized"). */
function TokenPrompt() {
  const [value, setValue] = useState("");
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setToken(value.trim() || null);
    window.location.reload();
  };
  return (
    <form className="token-form" onSubmit={submit}>
      <label htmlFor="workbench-token">Token (kept for this browser tab only)</label>
      <input
        id="workbench-token"
        type="password"
        autoComplete="off"
        value={value}
        onChange={(e) => setValue(e.target.value)}
      />
      <button type="submit" className="button primary">
        Use token
      </button>
      {getToken() && <span className="muted small">The stored token was refused.</span>}
    </form>
  );
}

/** A spinner with a label read by screen readers. */
export function Loading({ label = "Loading…" }: { label?: string }) {
  return (
    <div className="state state-loading" role="status" aria-live="polite">
      <span className="spinner" aria-hidden="true" />
      <span>{label}</span>
    </div>
  );
}

/** An error as the API said it (message, code and details), with an optional retry. */
export function ErrorState({
  error,
  title = "Something went wrong",
  retry,
}: {
  error: unknown;
  title?: string;
  retry?: () => void;
}) {
  const message = error instanceof Error ? error.message : String(error);
  const details = error instanceof ApiError ? validationErrors(error.details) : [];
  return (
    <div className="state state-error" role="alert">
      <strong>{title}</strong>
      <p className="error-message">{message}</p>
      {error instanceof ApiError && error.code !== "http_error" && (
        <p className="muted small">
          Error code <code>{error.code}</code>
          {error.status ? `, HTTP ${error.status}` : ""}
        </p>
      )}
      {details.length > 0 && (
        <ul className="error-details">
          {details.map((d, i) => (
            <li key={i}>{formatValidationError(d)}</li>
          ))}
        </ul>
      )}
      {error instanceof ApiError && error.code === "unauthorized" && <TokenPrompt />}
      {retry && (
        <button type="button" className="button" onClick={retry}>
          Try again
        </button>
      )}
    </div>
  );
}

/** An empty state: what is missing and what to do about it. */
export function Empty({
  title,
  children,
  action,
}: {
  title: string;
  children?: ReactNode;
  action?: ReactNode;
}) {
  return (
    <div className="state state-empty">
      <strong>{title}</strong>
      {children && <div className="muted">{children}</div>}
      {action && <div className="state-action">{action}</div>}
    </div>
  );
}

/** The empty state of a report with nothing usable (every decision escalated, or no gold labels). */
export function NoUsable({
  report,
}: {
  report: { split: string; item: { name: string }; counts: { escalated: number; total?: number } };
}) {
  return (
    <Empty title={`No usable answers for ${report.item.name} on the ${report.split} split`}>
      Metrics need answers with probabilities and a gold label.{" "}
      {report.counts.escalated > 0 &&
        `${report.counts.escalated} decisions were escalated (no usable output). `}
      Try another split or item, or check the server on the Servers page.
    </Empty>
  );
}
