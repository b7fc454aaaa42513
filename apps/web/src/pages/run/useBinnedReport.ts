/** The report the Reliability and Confidence tabs draw from. */
import { useReport } from "../../api/runs";
import type { TabProps } from "../RunPage";
import { useRunView } from "./useRunView";

/**
 * A run's report of one item and split, binned as the run view says (bin count, equal width or mass, top-label or
 * classwise): both tabs ask the same query, so switching between them reuses the one answer.
 */
export function useBinnedReport({ run, item, split }: TabProps) {
  const [view] = useRunView();
  return useReport(run.id, {
    item: item?.name,
    split,
    bins: view.bins,
    binning: view.binning,
    view: view.view,
  });
}
