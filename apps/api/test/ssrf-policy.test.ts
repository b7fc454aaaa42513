/**
 * The outbound policy's parts: which address falls in which range, the connect-time lookup (with an injected
 * resolver standing for DNS, on real sockets to a local server), and the snippets of remote text.
 */

import type { LookupAddress } from "node:dns";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { NetworkError, undiciOpenerWith } from "@decision-workbench/scorer";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type OutboundRules, refusalOf } from "../src/servers/outbound.js";
import {
  OutboundRefused,
  policyLookup,
  type Resolver,
  screenedOpener,
} from "../src/servers/outbound-opener.js";
import { redirectText, snippet } from "../src/servers/outbound-text.js";

const STRICT: OutboundRules = { allowPrivate: false, allowLoopback: false };
const EMBEDDED: OutboundRules = { allowPrivate: false, allowLoopback: true };
const LOCAL: OutboundRules = { allowPrivate: true, allowLoopback: true };

describe("the ranges", () => {
  const never = [
    "169.254.169.254",
    "169.254.1.1",
    "fd00:ec2::254",
    "::ffff:169.254.169.254",
    "::ffff:a9fe:a9fe",
    "0:0:0:0:0:ffff:a9fe:a9fe",
    "64:ff9b::169.254.169.254",
    "fe80::1",
    "fe80::1%eth0",
    "100.100.100.200",
    "168.63.129.16",
    "224.0.0.251",
    "255.255.255.255",
    "ff02::1",
    "2002:a9fe:a9fe::",
    "2001::7f00:1",
  ];
  const privateOrLoopback = [
    "127.0.0.1",
    "127.255.0.9",
    "::1",
    "::",
    "0.0.0.0",
    "10.0.0.1",
    "172.31.255.255",
    "192.168.0.1",
    "100.64.0.1",
    "198.19.0.1",
    "192.0.0.8",
    "fc00::1",
    "fd12:3456::1",
    "fec0::1",
    "::ffff:10.0.0.1",
    "::ffff:7f00:1",
    "64:ff9b::10.0.0.1",
    "64:ff9b:1::1",
    "::10.0.0.1",
  ];
  const publicAddresses = [
    "8.8.8.8",
    "93.184.216.34",
    "172.32.0.1",
    "2606:4700::1111",
    "64:ff9b::808:808",
    "::ffff:8.8.8.8",
  ];

  it("refuses link-local, metadata and non-unicast addresses under every policy", () => {
    for (const address of never) {
      for (const rules of [STRICT, EMBEDDED, LOCAL]) {
        const refused = refusalOf(address, rules);
        expect(refused?.allowable, address).toBe(false);
        expect(refused?.message, address).toContain("never connects to");
      }
    }
  });

  it("refuses private and loopback addresses unless allowed; the embedded server's rules allow loopback only", () => {
    for (const address of privateOrLoopback) {
      expect(refusalOf(address, STRICT)?.allowable, address).toBe(true);
      expect(refusalOf(address, STRICT)?.message, address).toContain("--allow-private-servers");
      expect(refusalOf(address, LOCAL), address).toBeUndefined();
    }
    for (const address of ["127.0.0.1", "::1", "::ffff:127.0.0.1"])
      expect(refusalOf(address, EMBEDDED)).toBeUndefined();
    for (const address of ["10.0.0.1", "0.0.0.0", "192.168.0.1"])
      expect(refusalOf(address, EMBEDDED)).toBeDefined();
    for (const address of publicAddresses) expect(refusalOf(address, STRICT), address).toBeUndefined();
    expect(refusalOf("not-an-address", LOCAL)?.allowable).toBe(false);
  });
});

/** A resolver standing for DNS: the given addresses for every name. */
function resolving(...addresses: string[]): Resolver {
  return (_hostname, _options, callback) =>
    callback(
      null,
      addresses.map((address): LookupAddress => ({ address, family: address.includes(":") ? 6 : 4 })),
    );
}

/** Runs a lookup with `all` as net.connect asks, and returns what it handed back. */
function lookUp(rules: OutboundRules, resolver: Resolver, all = true) {
  return new Promise<{ err: Error | null; address: unknown }>((resolve) =>
    policyLookup(rules, resolver)("service.test", { all }, (err, address) => resolve({ err, address })),
  );
}

describe("the connect-time lookup", () => {
  it("hands the socket only the allowed addresses of a name, and refuses a name with none", async () => {
    const mixed = await lookUp(STRICT, resolving("169.254.169.254", "10.0.0.1", "93.184.216.34"));
    expect(mixed.err).toBeNull();
    expect(mixed.address).toEqual([{ address: "93.184.216.34", family: 4 }]);
    const one = await lookUp(STRICT, resolving("10.0.0.1", "93.184.216.34"), false);
    expect(one.address).toBe("93.184.216.34");

    const metadata = await lookUp(LOCAL, resolving("169.254.169.254"));
    expect(metadata.err).toBeInstanceOf(OutboundRefused);
    expect(metadata.err?.message).toBe(
      "not connected: 169.254.169.254 (what service.test resolves to) is the cloud metadata address (169.254.169.254/32), which the workbench never connects to (link-local, cloud metadata and non-unicast addresses are refused always)",
    );
    const internal = await lookUp(STRICT, resolving("::ffff:10.1.1.1"));
    expect(internal.err?.message).toContain("10.0.0.0/8, as 10.1.1.1");
    expect((await lookUp(LOCAL, resolving("10.1.1.1"))).address).toEqual([
      { address: "10.1.1.1", family: 4 },
    ]);
  });

  describe("on real sockets", () => {
    let server: Server;
    let port = 0;
    let hits = 0;
    beforeAll(async () => {
      server = createServer((_req, res) => {
        hits++;
        res.end("internal reply");
      });
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      port = (server.address() as AddressInfo).port;
    });
    afterAll(async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    });

    it("refuses a name that resolves to a refused address when the socket connects; the same name allowed connects", async () => {
      // the name passes every text check; only what it resolves to, at connect time, decides
      const dns = resolving("127.0.0.1");
      const request = {
        url: `http://internal.service.test:${port}/v1/models`,
        method: "GET" as const,
        headers: {},
        timeout: 5,
      };
      const strict = screenedOpener(STRICT, undiciOpenerWith({ lookup: policyLookup(STRICT, dns) }));
      const error = await strict(request).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(NetworkError);
      expect((error as Error).message).toContain(
        "not connected: 127.0.0.1 (what internal.service.test resolves to) is a loopback address",
      );
      expect(hits).toBe(0);

      const local = screenedOpener(LOCAL, undiciOpenerWith({ lookup: policyLookup(LOCAL, dns) }));
      expect((await local(request)).body).toBe("internal reply");
      expect(hits).toBe(1);
    });

    it("refuses an IP-address host before dispatch (no lookup runs for one)", async () => {
      const before = hits;
      const strict = screenedOpener(STRICT, undiciOpenerWith({ lookup: policyLookup(STRICT, resolving()) }));
      for (const host of ["127.0.0.1", "[::ffff:127.0.0.1]"]) {
        const error = await strict({
          url: `http://${host}:${port}/`,
          method: "GET",
          headers: {},
          timeout: 5,
        }).catch((e: unknown) => e);
        expect((error as Error).message, host).toMatch(/^not connected: .* is a loopback address/);
      }
      expect(hits).toBe(before);
    });
  });
});

describe("remote text", () => {
  it("cuts a snippet to 200 characters, drops control characters and redacts secrets", () => {
    const text = `\u001b[31mfailed\u0007\u202e  token=abc123def456 Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig sk-proj-ABCDEFGHIJKLMNOP the-key-1234 ${"x".repeat(500)}`;
    const out = snippet(text, ["the-key-1234"]);
    expect(out.length).toBeLessThanOrEqual(200);
    expect(out).toMatch(/^\[31mfailed token=\[redacted\] Authorization: \[redacted\]/);
    for (const hidden of [
      "\u001b",
      "\u0007",
      "\u202e",
      "abc123def456",
      "eyJhbGci",
      "sk-proj-ABCD",
      "the-key-1234",
    ]) {
      expect(out).not.toContain(hidden);
    }
    expect(snippet(`${"a1".repeat(30)} done`)).toBe("[redacted] done");
  });

  it("names only the origin of a redirect's Location", () => {
    const said = redirectText(
      301,
      "https://user:pw@other.example:8443/path/x?token=QS#frag",
      "http://a.test/v1/decision",
    );
    expect(said).toContain("a redirect to https://other.example:8443,");
    for (const hidden of ["user", "pw", "/path", "QS", "frag"]) expect(said).not.toContain(hidden);
    expect(redirectText(302, "/relative/secret", "http://a.test:81/v1/models")).toContain(
      "a redirect to http://a.test:81,",
    );
    expect(redirectText(302, undefined, "http://a.test/")).toContain("to no http(s) address");
    expect(redirectText(302, "javascript:alert(1)", "http://a.test/")).not.toContain("alert");
  });
});
