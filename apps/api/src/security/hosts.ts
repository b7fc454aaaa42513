/**
 * The Host allow-list against DNS rebinding: a page on another domain that re-points its name at this machine
 * sends its own name as `Host`, and is refused (421) before any route runs.
 */

import { networkInterfaces } from "node:os";
import type { FastifyInstance } from "fastify";
import { ApiError } from "../errors.js";

const LOOPBACK_NAMES = ["localhost", "127.0.0.1", "[::1]"];
const WILDCARDS = new Set(["0.0.0.0", "::", "[::]", ""]);

/** How a host name or address is written in a Host header: lower case, IPv6 in brackets. */
function hostForm(host: string): string {
  const h = host.trim().toLowerCase();
  return h.includes(":") && !h.startsWith("[") ? `[${h}]` : h;
}

/** The host part of a Host header value (`name`, `name:port`, `[v6]:port`), lower case; undefined when malformed. */
function hostOfHeader(value: string | undefined): string | undefined {
  if (!value) return undefined;
  const v = value.trim().toLowerCase();
  const m = /^(\[[0-9a-f:.]+\]|[^:[\]\s/@]+)(?::\d{1,5})?$/.exec(v);
  return m?.[1];
}

/**
 * The names this workbench answers to: the loopback names, the bound address (when it is not a wildcard; when it
 * is, the machine's own interface addresses, which a rebinding page cannot send as its Host), and `--allow-host`.
 */
export function allowedHosts(boundHost: string | undefined, extra: readonly string[] = []): Set<string> {
  const names = new Set([...LOOPBACK_NAMES, ...extra.map(hostForm)]);
  if (boundHost !== undefined && !WILDCARDS.has(boundHost)) names.add(hostForm(boundHost));
  else if (boundHost !== undefined) {
    for (const list of Object.values(networkInterfaces())) {
      for (const a of list ?? []) names.add(hostForm(a.address.split("%")[0]));
    }
  }
  return names;
}

/** Refuses (421 host_not_allowed) every request whose Host is not one of `allowed`. */
export function requireAllowedHost(app: FastifyInstance, allowed: Set<string>): void {
  app.addHook("onRequest", async (req) => {
    const host = hostOfHeader(req.headers.host);
    if (host !== undefined && allowed.has(host)) return;
    throw new ApiError(
      421,
      "host_not_allowed",
      host === undefined
        ? "the request has no valid Host header; send the workbench's own address as Host"
        : `this workbench does not answer to the host name ${JSON.stringify(host.slice(0, 100))}: start it with --allow-host ${host.slice(0, 100)} (repeatable, or WORKBENCH_ALLOW_HOSTS) to reach it under that name`,
    );
  });
}
