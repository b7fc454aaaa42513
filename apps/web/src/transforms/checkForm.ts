/**
 * The check form's refusals on its fields: a calibration that does not fit the run's items (the API's "question
 * species: the file has choice options [a, b], …") or no longer exists goes on Calibration, a split on Check on.
 */

import { fieldProblems, type ProblemRule } from "./apiErrors";

/** The check form's fields by the API's names for them. */
export type CheckField = "calibrationId" | "split";

const MISMATCH =
  /question (\S+): the file has (\w+) options \[([^\]]*)\], the run's item has (\w+) options \[([^\]]*)\]/g;

const CHECK_RULES: ProblemRule[] = [
  {
    pattern: /^question \S+: the file has \w+ options/,
    field: "calibrationId",
    rewrite: (m) => {
      const items = [...(m.input ?? "").matchAll(MISMATCH)].map(
        (x) => `${x[1]} has the options ${x[3]} in the file and ${x[5]} in the run`,
      );
      return `This calibration does not fit the run's items (${items.join("; ")}); pick a calibration of this dataset`;
    },
  },
  {
    pattern: /^calibration "(.*)" does not exist/,
    field: "calibrationId",
    rewrite: () => "This calibration does not exist (any more); pick another",
  },
  {
    pattern: /^run \S+ has no (\w+) split \(it ran ([^)]*)\)/,
    field: "split",
    rewrite: (m) => `This run has no ${m[1]} split; check on ${m[2].replace(/, /g, " or ")}`,
  },
];

/** The API's refusal of a check on the form's fields, and what no field is for. */
export function checkFormProblems(error: unknown): {
  byField: Partial<Record<CheckField, string>>;
  rest: string[];
} {
  return fieldProblems(
    error,
    ["calibrationId", "split"],
    { calibrationId: "Calibration", split: "Check on" },
    CHECK_RULES,
  );
}
