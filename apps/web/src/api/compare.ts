/** Comparison of two or more runs on their shared examples. */

import type { Comparison } from "@decision-workbench/api/shapes";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { api, query } from "./client";

/** Compares runs (paired bootstrap); disabled until two are chosen. */
export function useCompare(runs: string[], p: { item?: string; split?: string }) {
  return useQuery({
    queryKey: ["compare", runs, p],
    queryFn: () =>
      api<Comparison>(`/compare${query({ runs: runs.join(","), item: p.item, split: p.split })}`),
    enabled: runs.length >= 2,
    placeholderData: keepPreviousData,
  });
}
