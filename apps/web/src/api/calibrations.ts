/** Calibrations: fit, list, one, the file's download address. */
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { API_BASE, api, query } from "./client";
import type { Calibration, CalibrationInput } from "./types";

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
    mutationFn: (input: CalibrationInput) =>
      api<Calibration>(`/runs/${encodeURIComponent(runId)}/calibrations`, { method: "POST", body: input }),
    onSuccess: (cal) => {
      qc.setQueryData(["calibration", cal.id], cal);
      qc.invalidateQueries({ queryKey: ["calibrations", runId] });
    },
  });
}

/** Where the calibration file downloads from. */
export function calibrationFileUrl(id: string): string {
  return `${API_BASE}/calibrations/${encodeURIComponent(id)}/file`;
}
