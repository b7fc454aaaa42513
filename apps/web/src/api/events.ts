/** Live progress of a run over Server-Sent Events. */

import type { Progress, RunSummary } from "@decision-workbench/api/shapes";
import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { FIGURES_REFRESH_MS, refreshDue } from "../transforms/progress";
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

/**
 * Follows /api/runs/:id/events from when the run is `active` until the stream's `done`, so a run cancelled on the
 * page still brings its final summary (answers in flight are stored after the cancel answered). Progress refreshes
 * the run's summary (its headline accuracy and ECE, computed from the answers stored so far) and reports at most
 * every FIGURES_REFRESH_MS, the last events of a burst included; `done` refreshes the run, the run list, its reports
 * and items at once.
 */
export function useRunEvents(runId: string | undefined, active: boolean): RunEvents {
  const qc = useQueryClient();
  // Kept per run, so another run opened in the same page never shows this one's events.
  const [events, setEvents] = useState<{ runId?: string; value: RunEvents }>({ value: IDLE });
  // the run whose stream is followed until `done`, once it was seen active
  const [following, setFollowing] = useState<string>();
  useEffect(() => {
    if (active && runId) setFollowing(runId);
  }, [active, runId]);
  const on = !!runId && (active || following === runId);

  useEffect(() => {
    if (!runId || !on || typeof EventSource === "undefined") return;
    const set = (f: (e: RunEvents) => RunEvents) =>
      setEvents((old) => ({ runId, value: f(old.runId === runId ? old.value : IDLE) }));
    set(() => ({ progress: null, final: null, state: "connecting" }));
    // EventSource cannot send headers: the API accepts the token as ?token= on event streams.
    const token = getToken();
    const source = new EventSource(
      `${API_BASE}/runs/${encodeURIComponent(runId)}/events${token ? `?token=${encodeURIComponent(token)}` : ""}`,
    );
    let refreshedAt: number | null = null;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const refreshFigures = () => {
      timer = undefined;
      refreshedAt = Date.now();
      qc.invalidateQueries({ queryKey: ["run", runId] });
      qc.invalidateQueries({ queryKey: ["report", runId] });
    };
    /** Refreshes now when due, else once the interval has passed (one timer at a time). */
    const figuresMoved = () => {
      const now = Date.now();
      if (refreshDue(refreshedAt, now)) refreshFigures();
      else timer ??= setTimeout(refreshFigures, FIGURES_REFRESH_MS - (now - (refreshedAt ?? now)));
    };
    source.onopen = () => set((e) => ({ ...e, state: "open" }));
    source.onerror = () => set((e) => (e.state === "closed" ? e : { ...e, state: "error" }));
    source.addEventListener("progress", (ev) => {
      const progress = JSON.parse((ev as MessageEvent<string>).data) as Progress;
      set((e) => ({ ...e, progress, state: "open" }));
      // the first event is the state at connection, which the run's summary already holds
      if (refreshedAt === null) refreshedAt = Date.now();
      else figuresMoved();
    });
    source.addEventListener("done", (ev) => {
      const final = JSON.parse((ev as MessageEvent<string>).data) as RunSummary;
      source.close();
      clearTimeout(timer);
      set(() => ({ progress: final.progress, final, state: "closed" }));
      setFollowing(undefined);
      qc.setQueryData(["run", runId], final);
      // a fetch of the run started before `done` (e.g. by a cancel) must not land after it with an older count:
      // invalidating cancels it and fetches the run as stored now
      qc.invalidateQueries({ queryKey: ["run", runId], exact: true });
      qc.invalidateQueries({ queryKey: ["runs"] });
      qc.invalidateQueries({ queryKey: ["report", runId] });
      qc.invalidateQueries({ queryKey: ["items", runId] });
    });
    return () => {
      clearTimeout(timer);
      source.close();
    };
  }, [runId, on, qc]);

  return events.runId === runId ? events.value : IDLE;
}
