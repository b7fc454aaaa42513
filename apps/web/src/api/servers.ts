/** Decision servers: list, add, edit, delete, check. */

import type { Server, ServerCheck, ServerInput } from "@decision-workbench/api/shapes";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api } from "./client";

/** Every registered server. */
export function useServers() {
  return useQuery({ queryKey: ["servers"], queryFn: () => api<Server[]>("/servers") });
}

/** Adds (no id) or edits (id) a server. */
export function useSaveServer() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ id, input }: { id?: string; input: Partial<ServerInput> }) =>
      id
        ? api<Server>(`/servers/${encodeURIComponent(id)}`, { method: "PATCH", body: input })
        : api<Server>("/servers", { method: "POST", body: input }),
    onSuccess: () => qc.invalidateQueries({ queryKey: ["servers"] }),
  });
}

/** Deletes a server (force also when runs use it). */
export function useDeleteServer() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ id, force }: { id: string; force?: boolean }) =>
      api<void>(`/servers/${encodeURIComponent(id)}${force ? "?force=true" : ""}`, { method: "DELETE" }),
    onSuccess: () => qc.invalidateQueries({ queryKey: ["servers"] }),
  });
}

/** Lists the server's models and sends one probe question. */
export function useCheckServer() {
  return useMutation({
    mutationFn: (id: string) =>
      api<ServerCheck>(`/servers/${encodeURIComponent(id)}/check`, { method: "POST" }),
  });
}
