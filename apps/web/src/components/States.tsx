/** Loading, error and empty states: designed, never a blank area. */
import { type FormEvent, type ReactNode, useState } from "react";
import { Link, useInRouterContext } from "react-router";
import { getToken, setToken } from "../api/token";
import { describeError } from "../transforms/apiErrors";
import "./States.css";

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

/** The API's own words (message, code, HTTP status, request, details), collapsed: for reports and bug hunts. */
export function TechnicalDetails({ error }: { error: unknown }) {
  const t = describeError(error).technical;
  if (!t) return null;
  return (
    <details className="technical-details">
      <summary>Technical details</summary>
      <dl>
        <dt>Message</dt>
        <dd>{t.message}</dd>
        <dt>Code</dt>
        <dd>
          <code>{t.code}</code>
          {t.status ? `, HTTP ${t.status}` : ""}
        </dd>
        {t.request && (
          <>
            <dt>Request</dt>
            <dd>
              <code>{t.request}</code>
            </dd>
          </>
        )}
        {t.details.length > 0 && (
          <>
            <dt>Details</dt>
            <dd>
              <ul>
                {t.details.map((d, i) => (
                  <li key={i}>
                    <code>{d}</code>
                  </li>
                ))}
              </ul>
            </dd>
          </>
        )}
      </dl>
    </details>
  );
}

function NextStep({ to, label }: { to: string; label: string }) {
  const routed = useInRouterContext();
  return routed ? (
    <Link className="error-next" to={to}>
      {label}
    </Link>
  ) : (
    <a className="error-next" href={to}>
      {label}
    </a>
  );
}

/**
 * An error as a sentence about the person's action (a run that does not exist, a refused value, the workbench
 * unreachable), every problem listed, a way on; the API's message, code and status only inside a collapsed
 * "Technical details". `retry` shows "Try again" only where trying again can help (network, 5xx, 429).
 */
export function ErrorState({ error, title, retry }: { error: unknown; title?: string; retry?: () => void }) {
  const p = describeError(error);
  return (
    <div className="state state-error" role="alert">
      <strong>{title ?? p.title}</strong>
      <p className="error-message">
        {p.sentence}
        {p.link && (
          <>
            {" "}
            <NextStep {...p.link} />
          </>
        )}
      </p>
      {p.problems.length > 0 && (
        <ul className="error-details">
          {p.problems.map((d, i) => (
            <li key={i}>{d}</li>
          ))}
        </ul>
      )}
      {p.unauthorized && <TokenPrompt />}
      {retry && p.retry && (
        <button type="button" className="button" onClick={retry}>
          Try again
        </button>
      )}
      <TechnicalDetails error={error} />
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
