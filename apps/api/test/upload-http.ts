/** Helpers of the upload tests: raw HTTP requests (node:http), big generated uploads, a latency probe in a child process. */

import { spawn } from "node:child_process";
import { type IncomingHttpHeaders, request } from "node:http";
import { syntheticTask } from "./fixtures.js";

/** An answer read whole. */
export interface RawAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * Sends a request over node:http and reads the answer. `body` is written as given; `end: false` leaves the
 * request unfinished (the answer must then come before the body does). Every POST carries `x-workbench: 1`.
 */
export function send(
  base: string,
  opts: {
    method?: string;
    path: string;
    headers?: Record<string, string>;
    body?: Buffer | string | (Buffer | string)[];
    end?: boolean;
  },
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const method = opts.method ?? "POST";
    const headers = { ...(method === "POST" ? { "x-workbench": "1" } : {}), ...opts.headers };
    const req = request(new URL(opts.path, base), { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => {
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          body: Buffer.concat(chunks).toString(),
        });
        if (opts.end === false) req.destroy();
      });
      res.on("error", reject);
    });
    req.on("error", reject);
    const parts = opts.body === undefined ? [] : Array.isArray(opts.body) ? opts.body : [opts.body];
    for (const p of parts) req.write(p);
    if (opts.end !== false) req.end();
  });
}

/** POSTs a JSON upload body (bytes as given) with its Content-Length. */
export function postUpload(base: string, body: Buffer | string): Promise<RawAnswer> {
  const bytes = typeof body === "string" ? Buffer.from(body) : body;
  return send(base, {
    path: "/api/datasets",
    headers: { "content-type": "application/json", "content-length": String(bytes.length) },
    body: bytes,
  });
}

/** A multipart body with the given fields (a Buffer value is sent as a file named `filename`). */
export function multipartBody(
  fields: { name: string; value: string | Buffer; filename?: string }[],
  boundary = "----wbupload",
): { body: Buffer; contentType: string } {
  const parts: Buffer[] = [];
  for (const f of fields) {
    const file = f.filename ? `; filename="${f.filename}"` : "";
    parts.push(
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${f.name}"${file}\r\n\r\n`),
      typeof f.value === "string" ? Buffer.from(f.value) : f.value,
      Buffer.from("\r\n"),
    );
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(parts), contentType: `multipart/form-data; boundary=${boundary}` };
}

/** The error of an error answer. */
export function errorOf(a: RawAnswer): {
  code: string;
  message: string;
  details?: Record<string, unknown>[];
} {
  return (JSON.parse(a.body) as { error: { code: string; message: string } }).error;
}

const TEAMS = ["billing", "shipping", "account"] as const;
const TOPIC = { billing: "refund", shipping: "delivery", account: "password" } as const;

/** `rows` valid JSONL lines of the synthetic task, about 95 bytes each (1,000,000 rows: ~95 MB). */
export function bigJsonl(rows: number): string {
  const lines: string[] = new Array(rows);
  for (let i = 0; i < rows; i++) {
    const team = TEAMS[i % 3];
    lines[i] =
      `{"id":"r${String(i).padStart(7, "0")}","state":"ticket ${i} ${team}","labels":{"team":"${team}","topics":["${TOPIC[team]}"]}}\n`;
  }
  return lines.join("");
}

/** The JSON body uploading `content` as JSONL under `name`. */
export function jsonUpload(name: string, content: string): Buffer {
  return Buffer.from(JSON.stringify({ task: syntheticTask(name), format: "jsonl", content }));
}

// A CommonJS script for a child process: sends argv[1] (a JSON request: url, method, headers, body, everyMs) until
// its stdin ends, then prints each request's latency in milliseconds and status as JSON. Its own process, so a
// stalled event loop in the app cannot stall it. A GET waits for each answer, then 10 ms; a POST is sent every
// `everyMs` whether or not the last one was answered (an open loop: a stall delays every request sent during it,
// and each counts, instead of one slow sample).
const PROBE = `
const http = require("node:http");
const { url, method, headers, body, everyMs } = JSON.parse(process.argv[1]);
const agent = new http.Agent({ keepAlive: true });
const lat = [];
const status = [];
let stop = false;
process.stdin.on("data", () => {}).on("end", () => { stop = true; });
const send = () => new Promise((resolve) => {
  const t0 = performance.now();
  const done = (code) => { lat.push(performance.now() - t0); status.push(code); resolve(); };
  const req = http.request(url, { method, headers, agent }, (res) => { res.resume(); res.on("end", () => done(res.statusCode)); });
  req.on("error", () => done(0));
  req.end(body);
});
(async () => {
  process.stdout.write("ready\\n");
  if (method === "GET") {
    while (!stop) { await send(); await new Promise((r) => setTimeout(r, 10)); }
  } else {
    const sent = [];
    while (!stop) { sent.push(send()); await new Promise((r) => setTimeout(r, everyMs)); }
    await Promise.all(sent);
  }
  process.stdout.write(JSON.stringify({ lat, status }) + "\\n");
})();
`;

/** What a probe measured: each request's latency in milliseconds and its status (0: no answer). */
export interface Probed {
  latencies: number[];
  statuses: number[];
}

/**
 * Measures the latency of requests to `url` from a child process until `stop` is called: GET in a closed loop,
 * or (with `post`) a POST of that JSON body every `everyMs` milliseconds in an open loop.
 */
export async function probe(
  url: string,
  opts: { post?: unknown; everyMs?: number } = {},
): Promise<{ stop(): Promise<number[]>; stopAll(): Promise<Probed> }> {
  const request =
    opts.post === undefined
      ? { url, method: "GET", headers: {} }
      : {
          url,
          method: "POST",
          headers: { "content-type": "application/json", "x-workbench": "1" },
          body: JSON.stringify(opts.post),
          everyMs: opts.everyMs ?? 20,
        };
  const child = spawn(process.execPath, ["-e", PROBE, JSON.stringify(request)], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  let out = "";
  child.stdout.setEncoding("utf8").on("data", (c: string) => {
    out += c;
  });
  while (!out.includes("ready\n")) await new Promise((r) => setTimeout(r, 10));
  const stopAll = async (): Promise<Probed> => {
    const closed = new Promise((r) => child.on("close", r));
    child.stdin.end();
    await closed;
    const { lat, status } = JSON.parse(out.split("\n")[1]) as { lat: number[]; status: number[] };
    return { latencies: lat, statuses: status };
  };
  return { stopAll, stop: async () => (await stopAll()).latencies };
}

/** The p-quantile (0..1) of latencies, by rank. */
export function quantile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
}
