/** Runs: list, one, start, rename, cancel, resume, delete, report, items. */

import type {
  ItemReport,
  ItemsPage,
  ItemsQuery,
  ReportQuery,
  RunEstimate,
  RunInput,
  RunPatchInput,
  RunSummary,
} from "@decision-workbench/api/shapes";
import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api, query } from "./client";

const ACTIVE = new Set(["queued", "running"]);

/** Every run, newest first; refreshed every 2 s while one is active. */
export function useRuns(filter: { dataset?: string; status?: string } = {}) {
  return useQuery({
    queryKey: ["runs", filter],
    queryFn: () => api<RunSummary[]>(`/runs${query(filter)}`),
    refetchInterval: (q) => (q.state.data?.some((r) => ACTIVE.has(r.status)) ? 2000 : false),
  });
}

/** One run. */
export function useRun(id: string | undefined) {
  return useQuery({
    queryKey: ["run", id],
    queryFn: () => api<RunSummary>(`/runs/${encodeURIComponent(id ?? "")}`),
    enabled: !!id,
  });
}

/** Starts a run. */
export function useStartRun() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (input: RunInput) => api<RunSummary>("/runs", { method: "POST", body: input }),
    onSuccess: (run) => {
      // The run page opens with this summary at once, so its progress stream connects without a round trip.
      qc.setQueryData(["run", run.id], run);
      qc.invalidateQueries({ queryKey: ["runs"] });
    },
  });
}

/** Renames a run or changes its note (null removes either; an absent field stays as it is). */
export function useRenameRun() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ id, ...patch }: RunPatchInput & { id: string }) =>
      api<RunSummary>(`/runs/${encodeURIComponent(id)}`, { method: "PATCH", body: patch }),
    onSuccess: (run) => {
      qc.setQueryData(["run", run.id], run);
      qc.invalidateQueries({ queryKey: ["runs"] });
    },
  });
}

/** What a run with this input would send (POST /api/runs/estimate: nothing is sent to the server). */
export function useRunEstimate(input: RunInput) {
  return useQuery({
    queryKey: ["run-estimate", input],
    queryFn: () => api<RunEstimate>("/runs/estimate", { method: "POST", body: input }),
    placeholderData: keepPreviousData,
    staleTime: 30_000,
  });
}

/** Cancels, resumes or deletes a run. */
export function useRunAction() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({
      id,
      action,
    }: {
      id: string;
      /** "resume-uncapped": resume a run stopped at its budget with its caps removed. */
      action: "cancel" | "resume" | "resume-uncapped" | "delete";
    }): Promise<unknown> =>
      action === "delete"
        ? api<void>(`/runs/${encodeURIComponent(id)}`, { method: "DELETE" })
        : action === "resume-uncapped"
          ? api<RunSummary>(`/runs/${encodeURIComponent(id)}/resume`, {
              method: "POST",
              body: { maxCost: null, maxInputTokens: null },
            })
          : api<RunSummary>(`/runs/${encodeURIComponent(id)}/${action}`, { method: "POST" }),
    onSuccess: (_d, v) => {
      qc.invalidateQueries({ queryKey: ["runs"] });
      qc.invalidateQueries({ queryKey: ["run", v.id] });
    },
  });
}

/** One item's aggregated report; keeps showing the previous one while a new binning loads. */
export function useReport(id: string | undefined, p: ReportQuery, enabled = true) {
  return useQuery({
    queryKey: ["report", id, p],
    queryFn: () => api<ItemReport>(`/runs/${encodeURIComponent(id ?? "")}/report${query({ ...p })}`),
    enabled: !!id && enabled,
    placeholderData: keepPreviousData,
    staleTime: 60_000,
  });
}

/** A page of a run's predictions for one item. */
export function useItems(id: string | undefined, p: ItemsQuery, enabled = true) {
  return useQuery({
    queryKey: ["items", id, p],
    queryFn: () => api<ItemsPage>(`/runs/${encodeURIComponent(id ?? "")}/items${query({ ...p })}`),
    enabled: !!id && enabled,
    placeholderData: keepPreviousData,
  });
}
