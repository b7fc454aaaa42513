/** The runs that use a server: what a delete of it touches. */

import type { ServerRuns } from "@decision-workbench/api/shapes";
import { useQuery } from "@tanstack/react-query";
import { api } from "./client";

/** The runs of server `id` (their count and the newest 100), fetched while `id` is set and fresh each time. */
export function useServerRuns(id: string | null) {
  return useQuery({
    // not under ["servers"]: a delete refreshes that list, and must not ask for the runs of the server just gone
    queryKey: ["server-runs", id],
    queryFn: () => api<ServerRuns>(`/servers/${encodeURIComponent(id ?? "")}/runs`),
    enabled: id !== null,
    staleTime: 0,
  });
}
