/**
 * A failed action told as sentences about what the person did, with what the workbench API or the server said
 * (message, error code, HTTP status, request) kept in the collapsed "Technical details" every error shows.
 */

import type { Ref } from "react";
import { describeError } from "../transforms/apiErrors";
import { TechnicalDetails } from "./States";
import "./ProblemNote.css";

/** The sentence for an error nothing more specific was said about: unreachable, or the fallback given. */
export function problemSentence(error: unknown, fallback: string): string {
  const p = describeError(error);
  return p.technical?.code === "unreachable" || p.technical?.status === 0 ? p.sentence : fallback;
}

/** The note; focusable (tabIndex -1) so a form can move the focus to it. */
export function ProblemNote({
  title,
  sentences = [],
  error,
  ref,
}: {
  title: string;
  sentences?: string[];
  error?: unknown;
  ref?: Ref<HTMLDivElement>;
}) {
  return (
    <div className="problem-note" role="alert" tabIndex={-1} ref={ref}>
      <strong>{title}</strong>
      {sentences.map((s) => (
        <p key={s}>{s}</p>
      ))}
      {error !== undefined && error !== null && <TechnicalDetails error={error} />}
    </div>
  );
}
