/** Builds scorer deciders for a stored server: secrets decrypted here and nowhere else. */

import { type DecisionDecider, decisionDecider } from "@decision-workbench/scorer";
import type { RateLane } from "../engine/rate-lane.js";
import { laneOpener } from "../engine/rate-opener.js";
import { badRequest } from "../errors.js";
import type { SecretBox } from "../secrets/box.js";
import type { ServerRow } from "../storage/types.js";
import { hostRefusal, type OutboundPolicy, rulesFor } from "./outbound.js";
import { outboundOpener } from "./outbound-opener.js";

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
function mergedExtraBody(
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

/**
 * Why the policy refuses a stored server's host when it is an IP address (a host name is checked on the
 * addresses it resolves to, when the socket connects).
 */
export function outboundRefusal(
  server: ServerRow,
  box: SecretBox,
  outbound: OutboundPolicy,
): string | undefined {
  let url: URL;
  try {
    url = new URL(fullBaseUrl(server, box));
  } catch {
    return undefined; // the scorer refuses a URL it cannot parse
  }
  const refused = hostRefusal(url, rulesFor(server, outbound), false);
  return refused && `server ${JSON.stringify(server.name)}: the host ${refused.message}`;
}

/** A server's rate limits (engine/rate-lane.ts). */
export function limitsOf(server: ServerRow): {
  requestsPerMinute: number | null;
  inputTokensPerMinute: number | null;
} {
  return {
    requestsPerMinute: server.requestsPerMinute ?? null,
    inputTokensPerMinute: server.inputTokensPerMinute ?? null,
  };
}

/**
 * A decider over one model of a server, with a run's server options and retrieval budget. Its requests go
 * through the outbound policy (outbound-opener.ts): refused addresses are never connected to. A host the policy
 * refuses as written is a 400 (ApiError) here, before any request. With `run.lane`, every request is paced by
 * the server's lane and a 429 pauses the lane (engine/rate-opener.ts).
 */
export function deciderFor(
  server: ServerRow,
  box: SecretBox,
  model: string,
  outbound: OutboundPolicy,
  run: { options?: Record<string, unknown>; maxLen?: number | null; lane?: RateLane } = {},
): DecisionDecider {
  const refused = outboundRefusal(server, box, outbound);
  if (refused) throw badRequest(refused);
  const extraBody = mergedExtraBody(server, run.options);
  return decisionDecider(fullBaseUrl(server, box), model, apiKeyOf(server, box), {
    opener: run.lane
      ? laneOpener(outboundOpener(rulesFor(server, outbound)), run.lane, 60, server.backoff)
      : outboundOpener(rulesFor(server, outbound)),
    timeout: server.timeout,
    retries: server.retries,
    backoff: server.backoff,
    deterministic: server.deterministic,
    maxLen: run.maxLen ?? null,
    ...(Object.keys(extraBody).length ? { extraBody } : {}),
  });
}
