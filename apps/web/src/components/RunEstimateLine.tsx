/** The estimate of a run before it starts: its input and output tokens and, with prices, its cost. */

import type { RunInput } from "@decision-workbench/api/shapes";
import { useRunEstimate } from "../api/runs";
import { describeError } from "../transforms/apiErrors";
import { estimateText } from "../transforms/cost";

/** One line under the Start button; quiet while loading, why when the input is refused. */
export function RunEstimateLine({ input }: { input: RunInput }) {
  const estimate = useRunEstimate(input);
  if (estimate.data)
    return (
      <p className="muted small run-estimate" aria-live="polite" data-testid="run-estimate">
        {estimateText(estimate.data)}
      </p>
    );
  if (estimate.error)
    return (
      <p className="muted small run-estimate" data-testid="run-estimate">
        No estimate: {describeError(estimate.error).sentence}
      </p>
    );
  return null;
}
