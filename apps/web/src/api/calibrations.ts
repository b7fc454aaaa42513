/** Calibrations: fit, list, one, the file's download address, import a file, check a run against one. */

import type { Calibration, CheckRequest, FitRequest, RunCheck } from "@decision-workbench/api/shapes";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { API_BASE, api, query } from "./client";

/** A run's calibrations, newest last as the API lists them. */
export function useCalibrations(runId: string | undefined) {
  return useQuery({
    queryKey: ["calibrations", runId],
    queryFn: () => api<Calibration[]>(`/calibrations${query({ runId })}`),
    enabled: !!runId,
  });
}

/** One calibration. */
export function useCalibration(id: string | undefined) {
  return useQuery({
    queryKey: ["calibration", id],
    queryFn: () => api<Calibration>(`/calibrations/${encodeURIComponent(id ?? "")}`),
    enabled: !!id,
  });
}

/** Fits calibrators on the stored predictions of a run. */
export function useFitCalibration(runId: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (input: FitRequest) =>
      api<Calibration>(`/runs/${encodeURIComponent(runId)}/calibrations`, { method: "POST", body: input }),
    onSuccess: (cal) => {
      qc.setQueryData(["calibration", cal.id], cal);
      // the run's list and every list of all calibrations (what a check can pick)
      qc.invalidateQueries({ queryKey: ["calibrations"] });
    },
  });
}

/** Where the calibration file downloads from. */
export function calibrationFileUrl(id: string): string {
  return `${API_BASE}/calibrations/${encodeURIComponent(id)}/file`;
}

/** Every calibration, fitted or imported, newest first (what a run can be checked against). */
export function useAllCalibrations() {
  return useQuery({
    queryKey: ["calibrations", "all"],
    queryFn: () => api<Calibration[]>("/calibrations"),
  });
}

/** Imports a calibration file; a 400 invalid_calibration_file lists every problem in its details. */
export function useImportCalibration() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (file: unknown) => api<Calibration>("/calibrations/import", { method: "POST", body: file }),
    onSuccess: (cal) => {
      qc.setQueryData(["calibration", cal.id], cal);
      qc.invalidateQueries({ queryKey: ["calibrations"] });
    },
  });
}

/**
 * Checks a run against a stored calibration: served model unchanged, calibrated ECE and answered-alone error inside
 * the file's intervals. A read (nothing is stored), so it is a query: the link alone brings the verdict back.
 */
export function useRunCheck(runId: string, p: Pick<CheckRequest, "calibrationId" | "split">) {
  return useQuery({
    queryKey: ["check", runId, p.calibrationId, p.split],
    queryFn: () =>
      api<RunCheck>(`/runs/${encodeURIComponent(runId)}/check`, {
        method: "POST",
        body: p.split
          ? { calibrationId: p.calibrationId, split: p.split }
          : { calibrationId: p.calibrationId },
      }),
    enabled: !!p.calibrationId,
    staleTime: 60_000,
  });
}
