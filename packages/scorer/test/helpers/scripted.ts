import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll } from "vitest";

/** One scripted reply: status (default 200), headers, and a body (an object is sent as JSON). */
export interface ScriptedReply {
  status?: number;
  headers?: Record<string, string>;
  body?: unknown;
}

/** A small node:http server that answers POSTs from a script, keeping each request's raw body text. */
export interface Scripted {
  /** The base URL. */
  url: string;
  /** The raw text of every request body, in order. */
  bodies: string[];
  /** The request paths, in order. */
  paths: string[];
}

/**
 * Starts a server whose n-th request (from 0) gets `script[n]` (the last entry once the script runs out),
 * or `script(n, body)`; it stops after the test file.
 */
export async function scripted(
  script: ScriptedReply[] | ((n: number, body: string) => ScriptedReply),
): Promise<Scripted> {
  const bodies: string[] = [];
  const paths: string[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      const n = bodies.length;
      bodies.push(body);
      paths.push(req.url ?? "");
      const reply = typeof script === "function" ? script(n, body) : script[Math.min(n, script.length - 1)];
      const text =
        reply.body === undefined
          ? ""
          : typeof reply.body === "string"
            ? reply.body
            : JSON.stringify(reply.body);
      res.writeHead(reply.status ?? 200, { "content-type": "application/json", ...reply.headers });
      res.end(text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  afterAll(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, bodies, paths };
}

/** A reply answering the question q0 of a yes/no item with P(yes) = p. */
export function yes(p: number, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { answers: { q0: { type: "noul", noul: p } }, ...extra };
}
