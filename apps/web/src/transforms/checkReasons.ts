/**
 * Why a check failed, in sentences with formatted numbers: the API's reasons carry raw floats and lists
 * ("at confidence >= 0.9494938803943613 0.3904 is above the file's interval [0.0000, 0.2000]", "served by
 * [bayes-1]"); these are rebuilt from each reason's code and the check's own figures.
 */

import type { RunCheck } from "@decision-workbench/api/shapes";
import { asSentence, withoutApiHints } from "./apiErrors";
import { formatInterval, pct, sig } from "./format";

/** What of the calibration file the sentences need: what served its runs, each question's threshold. */
export interface CheckedFile {
  source: { served_by: string[] };
  questions: Record<string, { threshold?: { min_confidence: number | null } | null }>;
}

const names = (xs: string[]) =>
  xs.length === 0
    ? "no model named"
    : xs.length === 1
      ? xs[0]
      : `${xs.slice(0, -1).join(", ")} and ${xs.at(-1)}`;

const interval = (i: [number, number] | null) =>
  i ? formatInterval([i[0], i[0], i[1]], "percent") : "none recorded";

/** The confidence a reason's answered-alone error was measured at: the file's threshold, else the API's words. */
function thresholdOf(question: string, message: string, file: CheckedFile | undefined): number | null {
  const t = file?.questions[question]?.threshold?.min_confidence;
  if (typeof t === "number") return t;
  const m = /confidence >= (-?[\d.e+-]+)/.exec(message);
  return m ? Number(m[1]) : null;
}

/** One sentence per reason the check failed, in the order the API gave them. */
export function checkReasons(report: RunCheck, file?: CheckedFile): string[] {
  return report.details.map((d) => {
    const q = d.question ? report.questions[d.question] : undefined;
    switch (d.code) {
      case "fingerprint-changed":
        return "The run asked another endpoint or model than the runs the file was fitted on.";
      case "served-by-changed":
        return `This run was answered by ${names(report.servedBy)}, the file was fitted on answers of ${file ? names(file.source.served_by) : "other models"}: the service swapped its weights.`;
      case "ece-outside":
        if (!q || !d.question) break;
        return `${d.question}: the calibrated ECE, ${pct(q.ece)}, is ${q.eceInterval && q.ece < q.eceInterval[0] ? "below" : "above"} the file's interval (${interval(q.eceInterval)}).`;
      case "answered-error-outside": {
        if (!q || !d.question || q.answeredError === null) break;
        const t = thresholdOf(d.question, d.message, file);
        const at = t === null ? "" : ` (answers with confidence ${sig(t)} or more)`;
        const where =
          q.answeredErrorInterval && q.answeredError < q.answeredErrorInterval[0] ? "below" : "above";
        return `${d.question}: the error of the answers given alone${at}, ${pct(q.answeredError)}, is ${where} the file's interval (${interval(q.answeredErrorInterval)}).`;
      }
    }
    return asSentence(withoutApiHints(d.message.replace(/\[([^\]]*)\]/g, "$1")));
  });
}
