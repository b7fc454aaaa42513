/** Datasets: bundled and uploaded, detail, examples, upload. */

import type { DatasetDetail, DatasetSummary, ExamplePage, Task } from "@decision-workbench/api/shapes";
import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api, query } from "./client";

/** Every dataset. */
export function useDatasets() {
  return useQuery({ queryKey: ["datasets"], queryFn: () => api<DatasetSummary[]>("/datasets") });
}

/** One dataset with its task and label counts. */
export function useDataset(name: string | undefined) {
  return useQuery({
    queryKey: ["dataset", name],
    queryFn: () => api<DatasetDetail>(`/datasets/${encodeURIComponent(name ?? "")}`),
    enabled: !!name,
  });
}

/** A page of a dataset's examples. */
export function useExamples(
  name: string | undefined,
  p: { split?: string; offset: number; limit: number; q?: string },
) {
  return useQuery({
    queryKey: ["examples", name, p],
    queryFn: () =>
      api<ExamplePage>(
        `/datasets/${encodeURIComponent(name ?? "")}/examples${query({ split: p.split, offset: p.offset, limit: p.limit, q: p.q })}`,
      ),
    enabled: !!name,
    placeholderData: keepPreviousData,
  });
}

/** Uploads a dataset (nothing is stored when it has errors; the error's details list them by line). */
export function useUploadDataset() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: { task: Task; format: "jsonl" | "csv"; content: string }) =>
      api<DatasetSummary>("/datasets", { method: "POST", body }),
    onSuccess: () => qc.invalidateQueries({ queryKey: ["datasets"] }),
  });
}

/** Deletes an uploaded dataset. */
export function useDeleteDataset() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (name: string) => api<void>(`/datasets/${encodeURIComponent(name)}`, { method: "DELETE" }),
    onSuccess: () => qc.invalidateQueries({ queryKey: ["datasets"] }),
  });
}
