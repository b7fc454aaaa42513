/** Calibrations: fit, list, one, the file's download address, import a file, check a run against one. */

import type { Calibration, CheckRequest, FitRequest, RunCheck } from "@decision-workbench/api/shapes";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { API_BASE, api, query } from "./client";

/**
 * The query keys of calibrations, in one place, so that a fit or an import invalidates exactly the lists that read
 * them: the run's own list (the Calibrate page's picker) and the list of every calibration (what the check section
 * offers). A check's verdict is not among them: it reads one calibration, which a new one leaves unchanged.
 */
const calibrationKeys = {
  ofRun: (runId: string | undefined) => ["calibrations", "run", runId] as const,
  all: ["calibrations", "all"] as const,
  one: (id: string | undefined) => ["calibration", id] as const,
  check: (runId: string, calibrationId: string | undefined, split: string | undefined) =>
    ["check", runId, calibrationId, split] as const,
};

/** A run's calibrations, newest last as the API lists them. */
export function useCalibrations(runId: string | undefined) {
  return useQuery({
    queryKey: calibrationKeys.ofRun(runId),
    queryFn: () => api<Calibration[]>(`/calibrations${query({ runId })}`),
    enabled: !!runId,
  });
}

/** One calibration. */
export function useCalibration(id: string | undefined) {
  return useQuery({
    queryKey: calibrationKeys.one(id),
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
    onSuccess: async (cal) => {
      qc.setQueryData(calibrationKeys.one(cal.id), cal);
      // the run's list (the page's picker) and the list of all calibrations (what the check section offers);
      // awaited, so the mutation settles with both lists fresh
      await Promise.all([
        qc.invalidateQueries({ queryKey: calibrationKeys.ofRun(runId), exact: true }),
        qc.invalidateQueries({ queryKey: calibrationKeys.all, exact: true }),
      ]);
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
    queryKey: calibrationKeys.all,
    queryFn: () => api<Calibration[]>("/calibrations"),
  });
}

/** Imports a calibration file; a 400 invalid_calibration_file lists every problem in its details. */
export function useImportCalibration() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (file: unknown) => api<Calibration>("/calibrations/import", { method: "POST", body: file }),
    onSuccess: async (cal) => {
      qc.setQueryData(calibrationKeys.one(cal.id), cal);
      // an imported file belongs to no run: only the list of all calibrations (the check section's) holds it
      await qc.invalidateQueries({ queryKey: calibrationKeys.all, exact: true });
    },
  });
}

/**
 * Checks a run against a stored calibration: served model unchanged, calibrated ECE and answered-alone error inside
 * the file's intervals. A read (nothing is stored), so it is a query: the link alone brings the verdict back.
 */
export function useRunCheck(runId: string, p: Pick<CheckRequest, "calibrationId" | "split">) {
  return useQuery({
    queryKey: calibrationKeys.check(runId, p.calibrationId, p.split),
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
