/** Live progress of a run over Server-Sent Events. */

import type { Progress, RunSummary } from "@decision-workbench/api/shapes";
import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { API_BASE } from "./client";
import { getToken } from "./token";

/** What the progress stream has told so far. */
export interface RunEvents {
  /** The latest progress event (null until the first arrives). */
  progress: Progress | null;
  /** The final summary once `done` arrived. */
  final: RunSummary | null;
  /** "connecting" | "open" | "closed" (done) | "error" (the browser retries by itself). */
  state: "idle" | "connecting" | "open" | "closed" | "error";
}

const IDLE: RunEvents = { progress: null, final: null, state: "idle" };

/** Follows /api/runs/:id/events while `active`; on `done` refreshes the run and the run list. */
export function useRunEvents(runId: string | undefined, active: boolean): RunEvents {
  const qc = useQueryClient();
  // Kept per run, so another run opened in the same page never shows this one's events.
  const [events, setEvents] = useState<{ runId?: string; value: RunEvents }>({ value: IDLE });

  useEffect(() => {
    if (!runId || !active || typeof EventSource === "undefined") return;
    const set = (f: (e: RunEvents) => RunEvents) =>
      setEvents((old) => ({ runId, value: f(old.runId === runId ? old.value : IDLE) }));
    set(() => ({ progress: null, final: null, state: "connecting" }));
    // EventSource cannot send headers: the API accepts the token as ?token= on event streams.
    const token = getToken();
    const source = new EventSource(
      `${API_BASE}/runs/${encodeURIComponent(runId)}/events${token ? `?token=${encodeURIComponent(token)}` : ""}`,
    );
    source.onopen = () => set((e) => ({ ...e, state: "open" }));
    source.onerror = () => set((e) => (e.state === "closed" ? e : { ...e, state: "error" }));
    source.addEventListener("progress", (ev) => {
      const progress = JSON.parse((ev as MessageEvent<string>).data) as Progress;
      set((e) => ({ ...e, progress, state: "open" }));
    });
    source.addEventListener("done", (ev) => {
      const final = JSON.parse((ev as MessageEvent<string>).data) as RunSummary;
      source.close();
      set(() => ({ progress: final.progress, final, state: "closed" }));
      qc.setQueryData(["run", runId], final);
      qc.invalidateQueries({ queryKey: ["runs"] });
      qc.invalidateQueries({ queryKey: ["report", runId] });
      qc.invalidateQueries({ queryKey: ["items", runId] });
    });
    return () => source.close();
  }, [runId, active, qc]);

  return events.runId === runId ? events.value : IDLE;
}
