/**
 * The only way the API talks to a decision server: the scorer's undici opener whose sockets resolve host names
 * through the outbound policy (every address checked when the socket connects, so DNS cannot re-point a checked
 * name), IP-address hosts checked before dispatch, no redirect followed (a 3xx names only the origin it points
 * to), and an error reply cut to a short, sanitised snippet before the scorer or a check quotes it.
 */

import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions } from "node:dns";
import type { LookupFunction } from "node:net";
import {
  errorText,
  NetworkError,
  type Opener,
  type OpenerResponse,
  undiciOpenerWith,
} from "@decision-workbench/scorer";
import { LRUCache } from "lru-cache";
import { hostRefusal, type OutboundRules, refusalOf } from "./outbound.js";
import { redirectText, snippet } from "./outbound-text.js";

/** The lookup's error when the rules refuse every address a host name resolves to. */
export class OutboundRefused extends Error {
  override name = "OutboundRefused";
  readonly code = "EOUTBOUND";
}

/** Resolves every address of a host name (dns.lookup's signature, all: true); replaceable for tests. */
export type Resolver = (
  hostname: string,
  options: LookupAllOptions,
  callback: (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

/**
 * net.connect's `lookup` for the rules: resolves every address and hands the socket only the allowed ones, so
 * it connects to nothing the rules refuse; when none is allowed, the connect fails with OutboundRefused.
 */
export function policyLookup(rules: OutboundRules, resolve: Resolver = dnsLookup): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, { ...options, all: true }, (err, addresses) => {
      const done = callback as (
        err: NodeJS.ErrnoException | null,
        address: string | LookupAddress[],
        family?: number,
      ) => void;
      if (err) return done(err, options.all ? [] : "", 0);
      const allowed = addresses.filter((a) => refusalOf(a.address, rules) === undefined);
      if (allowed.length === 0) {
        const first = addresses[0];
        const why = first
          ? refusalOf(first.address, rules, `${first.address} (what ${hostname} resolves to)`)?.message
          : `${hostname} resolves to no address`;
        return done(new OutboundRefused(`not connected: ${why}`), options.all ? [] : "", 0);
      }
      if (options.all) return done(null, allowed);
      done(null, allowed[0].address, allowed[0].family);
    });
  };
}

/** The secrets a request carries (its bearer key, its basic credentials): redacted from what its reply quotes. */
function secretsOf(headers: Record<string, string>): string[] {
  const auth = headers.authorization ?? headers.Authorization;
  if (!auth) return [];
  const [scheme, value = ""] = auth.split(/\s+/, 2);
  if (/^basic$/i.test(scheme)) {
    const decoded = Buffer.from(value, "base64").toString();
    const colon = decoded.indexOf(":");
    const parts = colon < 0 ? [decoded] : [decoded, decoded.slice(0, colon), decoded.slice(colon + 1)];
    return [value, ...parts].filter((s) => s.length >= 4);
  }
  return [value].filter((s) => s.length >= 4);
}

/** A reply as the scorer and the check may read it: a redirect named by its origin, an error cut to a snippet. */
function screened(res: OpenerResponse, url: string, sent: Record<string, string>): OpenerResponse {
  if (res.status >= 200 && res.status < 300) return res;
  const message =
    res.status >= 300 && res.status < 400
      ? redirectText(res.status, res.headers.location, url)
      : snippet(errorText(res.body), secretsOf(sent));
  const { location: _location, "content-location": _content, ...headers } = res.headers;
  return { status: res.status, headers, body: JSON.stringify({ error: { message } }) };
}

/** Why the rules refuse a URL's host when it is an IP address (checked per request: no lookup runs for those). */
function literalRefusal(url: string, rules: OutboundRules): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return ""; // the opener reports a URL it cannot parse
  }
  const refused = hostRefusal(parsed, rules, false);
  return refused ? `not connected: ${refused.message}` : "";
}

const openers = new Map<string, Opener>();

/** The opener of the rules (one per rules, with its own keep-alive pools). */
export function outboundOpener(rules: OutboundRules): Opener {
  const key = `${rules.allowPrivate}/${rules.allowLoopback}`;
  let opener = openers.get(key);
  if (!opener) {
    opener = screenedOpener(rules, undiciOpenerWith({ lookup: policyLookup(rules) }));
    openers.set(key, opener);
  }
  return opener;
}

/** Wraps an opener with the rules' literal-address check, redirect refusal and reply snippets. */
export function screenedOpener(rules: OutboundRules, base: Opener): Opener {
  // Verdicts by URL ("" when allowed): checking an IP-address host costs ~15 us (the address against each
  // range), as much as the scorer's own work on a request; a name ~0.35 us. A decider sends every request to
  // one URL, so a few entries serve a whole run.
  const verdicts = new LRUCache<string, string>({ max: 256 });
  return async (req) => {
    let refused = verdicts.get(req.url);
    if (refused === undefined) {
      refused = literalRefusal(req.url, rules);
      verdicts.set(req.url, refused);
    }
    if (refused) throw new NetworkError("network", refused);
    let res: OpenerResponse;
    try {
      res = await base(req);
    } catch (err) {
      const cause = (err as { cause?: unknown }).cause;
      if (cause instanceof OutboundRefused) throw new NetworkError("network", cause.message, { cause });
      throw err;
    }
    return screened(res, req.url, req.headers);
  };
}
