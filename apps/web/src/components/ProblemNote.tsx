/**
 * A failed action told as sentences about what the person did, with what the workbench API or the server said
 * (message, error code, HTTP status) kept in a collapsed "Details" for whoever needs it.
 */

import type { Ref } from "react";
import { ApiError } from "../api/client";
import "./ProblemNote.css";

/** The sentence for an error nothing more specific was said about: unreachable, or the fallback given. */
export function problemSentence(error: unknown, fallback: string): string {
  if (error instanceof ApiError && error.status === 0)
    return "The workbench did not answer: check that it is still running, then try again.";
  return fallback;
}

/** The note; focusable (tabIndex -1) so a form can move the focus to it. */
export function ProblemNote({
  title,
  sentences = [],
  error,
  details = [],
  ref,
}: {
  title: string;
  sentences?: string[];
  error?: unknown;
  details?: string[];
  ref?: Ref<HTMLDivElement>;
}) {
  const said = [
    ...details,
    ...(error instanceof Error
      ? [error.message]
      : error !== undefined && error !== null
        ? [String(error)]
        : []),
  ];
  const code =
    error instanceof ApiError && error.code !== "http_error" && error.status !== 0
      ? `Error code ${error.code}, HTTP ${error.status}`
      : null;
  return (
    <div className="problem-note" role="alert" tabIndex={-1} ref={ref}>
      <strong>{title}</strong>
      {sentences.map((s) => (
        <p key={s}>{s}</p>
      ))}
      {(said.length > 0 || code) && (
        <details>
          <summary>Details</summary>
          <ul>
            {said.map((s) => (
              <li key={s}>{s}</li>
            ))}
            {code && <li>{code}</li>}
          </ul>
        </details>
      )}
    </div>
  );
}
