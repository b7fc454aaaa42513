/** The items table's pages with "Confident and wrong" cut at the reader's confidence threshold. */

import { ITEMS_PAGE } from "@decision-workbench/api/limits";
import type { ItemsPage, ItemsQuery } from "@decision-workbench/api/shapes";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { confidentRows, countConfident } from "../transforms/confidentWrong";
import { api, query } from "./client";
import { useItems } from "./runs";

/**
 * `useItems`, except that for the `confident-wrong` filter the page keeps only the wrong answers at or above
 * `threshold` and its total is how many there are (counted from the API's confidence-sorted wrong answers). The
 * count shares the items' query key prefix, so whatever refreshes the items refreshes it.
 */
export function useItemsAbove(id: string | undefined, p: ItemsQuery, threshold: number) {
  const page = useItems(id, p);
  const confident = p.filter === "confident-wrong";
  const total = useQuery({
    queryKey: ["items", id, "confident-count", { item: p.item, split: p.split, label: p.label, threshold }],
    queryFn: () =>
      countConfident(
        (offset, limit) =>
          api<ItemsPage>(
            `/runs/${encodeURIComponent(id ?? "")}/items${query({ item: p.item, split: p.split, label: p.label, filter: "confident-wrong", offset, limit })}`,
          ),
        threshold,
        ITEMS_PAGE.max,
      ),
    enabled: !!id && confident,
    placeholderData: keepPreviousData,
  });
  if (!confident) return page;
  const data: ItemsPage | undefined =
    page.data && total.data !== undefined
      ? { total: total.data, offset: page.data.offset, rows: confidentRows(page.data.rows, threshold) }
      : undefined;
  return {
    data,
    error: page.error ?? total.error,
    refetch: () => Promise.all([page.refetch(), total.refetch()]),
  };
}
