/** Live progress of a run over Server-Sent Events. */
import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { API_BASE } from "./client";
import { getToken } from "./token";
import type { Progress, RunSummary } from "./types";

/** What the progress stream has told so far. */
export interface RunEvents {
  /** The latest progress event (null until the first arrives). */
  progress: Progress | null;
  /** The final summary once `done` arrived. */
  final: RunSummary | null;
  /** "connecting" | "open" | "closed" (done) | "error" (the browser retries by itself). */
  state: "idle" | "connecting" | "open" | "closed" | "error";
}

/** Follows /api/runs/:id/events while `active`; on `done` refreshes the run and the run list. */
export function useRunEvents(runId: string | undefined, active: boolean): RunEvents {
  const qc = useQueryClient();
  const [events, setEvents] = useState<RunEvents>({ progress: null, final: null, state: "idle" });

  useEffect(() => {
    if (!runId || !active || typeof EventSource === "undefined") return;
    setEvents({ progress: null, final: null, state: "connecting" });
    // EventSource cannot send headers: the API accepts the token as ?token= on event streams.
    const token = getToken();
    const source = new EventSource(
      `${API_BASE}/runs/${encodeURIComponent(runId)}/events${token ? `?token=${encodeURIComponent(token)}` : ""}`,
    );
    source.onopen = () => setEvents((e) => ({ ...e, state: "open" }));
    source.onerror = () => setEvents((e) => (e.state === "closed" ? e : { ...e, state: "error" }));
    source.addEventListener("progress", (ev) => {
      const progress = JSON.parse((ev as MessageEvent<string>).data) as Progress;
      setEvents((e) => ({ ...e, progress, state: "open" }));
    });
    source.addEventListener("done", (ev) => {
      const final = JSON.parse((ev as MessageEvent<string>).data) as RunSummary;
      source.close();
      setEvents({ progress: final.progress, final, state: "closed" });
      qc.setQueryData(["run", runId], final);
      qc.invalidateQueries({ queryKey: ["runs"] });
      qc.invalidateQueries({ queryKey: ["report", runId] });
      qc.invalidateQueries({ queryKey: ["items", runId] });
    });
    return () => source.close();
  }, [runId, active, qc]);

  return events;
}
