/** Comparison of two or more runs on their shared examples, with a page of the answers that flipped. */

import type { Comparison } from "@decision-workbench/api/shapes";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { api, query } from "./client";

/**
 * Compares runs (paired bootstrap) against the first of `runs`, the baseline; disabled until two are chosen.
 * `offset` and `limit` choose the page of flipped answers (the API reuses its bootstrap across pages).
 */
export function useCompare(
  runs: string[],
  p: { item?: string; split?: string; offset?: number; limit?: number },
) {
  return useQuery({
    queryKey: ["compare", runs, p],
    queryFn: () =>
      api<Comparison>(
        `/compare${query({
          runs: runs.join(","),
          item: p.item,
          split: p.split,
          offset: p.offset || undefined,
          limit: p.limit,
        })}`,
      ),
    enabled: runs.length >= 2,
    placeholderData: keepPreviousData,
  });
}
