/** Builds scorer deciders for a stored server: secrets decrypted here and nowhere else. */

import { type DecisionDecider, decisionDecider } from "@decision-workbench/scorer";
import type { SecretBox } from "../secrets/box.js";
import type { ServerRow } from "../storage/types.js";

/** The associated-data label of one secret field of one server. */
export function secretContext(serverId: string, field: "apiKey" | "baseUrl"): string {
  return `server:${serverId}:${field}`;
}

/** The full base URL (credentials and query included) of a server. */
export function fullBaseUrl(server: ServerRow, box: SecretBox): string {
  return box.decrypt(server.baseUrlSecret, secretContext(server.id, "baseUrl"));
}

/** The API key of a server, or undefined. */
export function apiKeyOf(server: ServerRow, box: SecretBox): string | undefined {
  return server.apiKeySecret === null
    ? undefined
    : box.decrypt(server.apiKeySecret, secretContext(server.id, "apiKey"));
}

/** The server's extraBody with a run's server options merged into its `options` object. */
export function mergedExtraBody(
  server: ServerRow,
  runOptions: Record<string, unknown> = {},
): Record<string, unknown> {
  const extra = structuredClone(server.extraBody);
  if (Object.keys(runOptions).length) {
    const base = extra.options;
    const options =
      typeof base === "object" && base !== null && !Array.isArray(base)
        ? (base as Record<string, unknown>)
        : {};
    extra.options = { ...options, ...runOptions };
  }
  return extra;
}

/** A decider over one model of a server, with a run's server options and retrieval budget. */
export function deciderFor(
  server: ServerRow,
  box: SecretBox,
  model: string,
  run: { options?: Record<string, unknown>; maxLen?: number | null } = {},
): DecisionDecider {
  const extraBody = mergedExtraBody(server, run.options);
  return decisionDecider(fullBaseUrl(server, box), model, apiKeyOf(server, box), {
    timeout: server.timeout,
    retries: server.retries,
    backoff: server.backoff,
    deterministic: server.deterministic,
    maxLen: run.maxLen ?? null,
    ...(Object.keys(extraBody).length ? { extraBody } : {}),
  });
}
