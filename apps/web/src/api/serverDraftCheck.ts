/** The check of a server as typed in the form, before it is saved. */

import type { ServerCheck, ServerCheckInput } from "@decision-workbench/api/shapes";
import { useMutation } from "@tanstack/react-query";
import { api } from "./client";

/** Lists the models of the server described by `input` and sends it one probe; nothing is stored. */
export function useCheckDraftServer() {
  return useMutation({
    mutationFn: (input: ServerCheckInput) =>
      api<ServerCheck>("/servers/check", { method: "POST", body: input }),
  });
}
