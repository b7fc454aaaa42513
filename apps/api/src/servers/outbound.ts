/**
 * The outbound policy of server base URLs (SSRF): which addresses the API connects to. Link-local, cloud
 * metadata and non-unicast addresses never; private and loopback ones only when allowed (always without a token,
 * in token mode only with `--allow-private-servers`; the embedded reference server's loopback address always).
 * Checked on the base URL's text when a server is added or changed, and on every address a host name resolves
 * to when a socket connects (outbound-opener.ts).
 */

import { BlockList, isIP } from "node:net";
import { badRequest } from "../errors.js";

/** What the app decided (AppContext.outbound): private and loopback addresses allowed or not. */
export interface OutboundPolicy {
  allowPrivate: boolean;
}

/** The rules one server's connections follow: the policy, and the embedded server's loopback exemption. */
export interface OutboundRules {
  allowPrivate: boolean;
  allowLoopback: boolean;
}

/**
 * The policy of a workbench: private and loopback allowed when it is open to this machine only, and when its API
 * needs tokens (a shared one, people's own on an address beyond 127.0.0.1, a run worker beside others) only when
 * `--allow-private-servers` says so. The app's context and the run engine take the same one.
 */
export function outboundPolicyOf(guarded: boolean, allowPrivateServers = false): OutboundPolicy {
  return { allowPrivate: !guarded || allowPrivateServers };
}

/** The command line's policy: local use, private and loopback allowed; link-local and metadata still refused. */
export const LOCAL_POLICY: OutboundPolicy = { allowPrivate: true };

/** The rules of one server: the embedded reference server may use loopback whatever the policy. */
export function rulesFor(server: { embedded: boolean }, policy: OutboundPolicy): OutboundRules {
  return { allowPrivate: policy.allowPrivate, allowLoopback: policy.allowPrivate || server.embedded };
}

/** never: refused always; loopback and private: refused unless allowed. */
type Kind = "never" | "loopback" | "private";

interface Range {
  cidr: string;
  kind: Kind;
  what: string;
  list: BlockList;
}

/** The ranges, most specific first (the first match names the range). */
const RANGES: Range[] = (
  [
    ["169.254.169.254/32", "never", "the cloud metadata address"],
    ["fd00:ec2::254/128", "never", "the cloud metadata address (AWS, IPv6)"],
    ["100.100.100.200/32", "never", "the cloud metadata address (Alibaba Cloud)"],
    ["168.63.129.16/32", "never", "the cloud host endpoint (Azure)"],
    ["169.254.0.0/16", "never", "a link-local address"],
    ["fe80::/10", "never", "a link-local address"],
    ["224.0.0.0/4", "never", "a multicast address"],
    ["240.0.0.0/4", "never", "a reserved or broadcast address"],
    ["ff00::/8", "never", "a multicast address"],
    // Tunnels that embed an IPv4 address (6to4, Teredo): no decision service lives there, and the address inside
    // could be any of the above.
    ["2002::/16", "never", "a 6to4 tunnel address"],
    ["2001::/32", "never", "a Teredo tunnel address"],
    ["127.0.0.0/8", "loopback", "a loopback address"],
    ["::1/128", "loopback", "a loopback address"],
    ["0.0.0.0/8", "private", "a this-host address"],
    ["::/128", "private", "the unspecified address"],
    ["10.0.0.0/8", "private", "a private address"],
    ["172.16.0.0/12", "private", "a private address"],
    ["192.168.0.0/16", "private", "a private address"],
    ["100.64.0.0/10", "private", "a shared (carrier-grade NAT) address"],
    ["198.18.0.0/15", "private", "a benchmarking-network address"],
    ["192.0.0.0/24", "private", "an IETF protocol address"],
    ["fc00::/7", "private", "a unique-local (private) address"],
    ["fec0::/10", "private", "a site-local address"],
    ["::/96", "private", "an IPv4-compatible address"],
    ["64:ff9b:1::/48", "private", "a local-use NAT64 address"],
  ] as const
).map(([cidr, kind, what]) => {
  const [network, bits] = cidr.split("/");
  const family = network.includes(":") ? "ipv6" : "ipv4";
  const list = new BlockList();
  list.addSubnet(network, Number(bits), family);
  return { cidr, kind, what, list };
});

/** The 8 sixteen-bit words of an IPv6 address (a valid one: net.isIP said 6), a dotted IPv4 tail included. */
function ipv6Words(address: string): number[] {
  let text = address.toLowerCase();
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number);
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split("::");
  const h = head ? head.split(":") : [];
  const t = tail === undefined || tail === "" ? [] : tail.split(":");
  const zeros = tail === undefined ? [] : new Array<string>(8 - h.length - t.length).fill("0");
  return [...h, ...zeros, ...t].map((w) => Number.parseInt(w, 16));
}

/** The IPv4 address an IPv6 one stands for: IPv4-mapped (::ffff:a.b.c.d) and NAT64 (64:ff9b::a.b.c.d). */
function embeddedIpv4(address: string): string | undefined {
  const w = ipv6Words(address);
  const zero = (from: number, to: number) => w.slice(from, to).every((x) => x === 0);
  const mapped = zero(0, 5) && w[5] === 0xffff;
  const translated = zero(0, 4) && w[4] === 0xffff && w[5] === 0; // ::ffff:0:a.b.c.d (SIIT)
  const nat64 = w[0] === 0x64 && w[1] === 0xff9b && zero(2, 6);
  if (!mapped && !translated && !nat64) return undefined;
  return [w[6] >> 8, w[6] & 255, w[7] >> 8, w[7] & 255].join(".");
}

/** Where an address falls: the first range holding it, or undefined for a public address. */
function rangeOf(address: string): (Range & { via?: string }) | undefined {
  const bare = address.replace(/^\[|\]$/g, "").replace(/%.*$/, "");
  const family = isIP(bare);
  if (family === 6) {
    const v4 = embeddedIpv4(bare);
    if (v4 !== undefined) {
      const inner = rangeOf(v4);
      return inner && { ...inner, via: v4 };
    }
  }
  if (family === 0) return undefined;
  const type = family === 4 ? "ipv4" : "ipv6";
  return RANGES.find((r) => r.list.check(bare, type));
}

/** A refusal: why an address may not be connected to, and whether `--allow-private-servers` would allow it. */
export interface Refusal {
  message: string;
  /** True when only the policy refused it (a private or loopback address in token mode). */
  allowable: boolean;
}

/**
 * Why the rules refuse an IP address (undefined when allowed); `shown` is how the message names it. A text
 * that is not an IP address is refused.
 */
export function refusalOf(address: string, rules: OutboundRules, shown?: string): Refusal | undefined {
  const bare = address.replace(/^\[|\]$/g, "").replace(/%.*$/, "");
  if (isIP(bare) === 0) return { message: `${shown ?? address} is not an IP address`, allowable: false };
  const range = rangeOf(bare);
  if (!range) return undefined;
  const where = `${shown ?? bare} is ${range.what} (${range.cidr}${range.via ? `, as ${range.via}` : ""})`;
  if (range.kind === "never") {
    return {
      message: `${where}, which the workbench never connects to (link-local, cloud metadata and non-unicast addresses are refused always)`,
      allowable: false,
    };
  }
  if (range.kind === "loopback" && rules.allowLoopback) return undefined;
  if (rules.allowPrivate) return undefined;
  return {
    message: `${where}; a workbench started with a token connects to private and loopback addresses only when started with --allow-private-servers`,
    allowable: true,
  };
}

/** Host names that stand for an address whatever the DNS says (RFC 6761 localhost; the GCP metadata name). */
function nameAddress(host: string): string | undefined {
  const name = host.toLowerCase().replace(/\.$/, "");
  if (name === "localhost" || name.endsWith(".localhost")) return "127.0.0.1";
  if (name === "metadata.google.internal") return "169.254.169.254";
  return undefined;
}

/**
 * Why the rules refuse a base URL's host as written: an IP address, or (with `names`, when a server is added or
 * changed) a name that stands for one such as localhost. Undefined when allowed. Names are checked on what they
 * resolve to when a socket connects (outbound-opener.ts), whatever this says.
 */
export function hostRefusal(url: URL, rules: OutboundRules, names = true): Refusal | undefined {
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (isIP(host) !== 0) return refusalOf(host, rules);
  const stands = names ? nameAddress(host) : undefined;
  return stands === undefined ? undefined : refusalOf(stands, rules, `${host} (${stands})`);
}

/** Refuses (400) a checked base URL whose host the rules refuse; the message names the host and the range only. */
export function checkOutbound(baseUrl: string, rules: OutboundRules, field = "body.baseUrl"): void {
  const refused = hostRefusal(new URL(baseUrl.trim()), rules);
  if (refused) throw badRequest(`${field}: the host ${refused.message}`);
}
