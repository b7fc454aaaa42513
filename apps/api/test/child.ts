/** Runs the workbench command as a child process from its TypeScript source (node --import tsx). */

import { type ChildProcess, spawn } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const apiDir = join(dirname(fileURLToPath(import.meta.url)), "..");
const main = join(apiDir, "src", "cli", "main.ts");

/** A running `workbench` process and what it printed. */
export interface Child {
  proc: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** The first line of stdout. */
  firstLine: Promise<string>;
  /** Resolves with the exit code (or the signal name). */
  exited: Promise<number | string>;
}

/** Spawns `workbench <args>`; the environment is the test's plus `env`; `nodeArgs` go to node before the script. */
export function workbench(
  args: string[],
  env: Record<string, string | undefined> = {},
  nodeArgs: string[] = [],
): Child {
  const proc = spawn(process.execPath, [...nodeArgs, "--import", "tsx", main, ...args], {
    cwd: apiDir,
    env: { ...process.env, ...env, NODE_OPTIONS: "" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  let resolveFirst: (line: string) => void = () => {};
  let rejectFirst: (e: Error) => void = () => {};
  const firstLine = new Promise<string>((resolve, reject) => {
    resolveFirst = resolve;
    rejectFirst = reject;
  });
  proc.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
    out += chunk;
    const nl = out.indexOf("\n");
    if (nl >= 0) resolveFirst(out.slice(0, nl));
  });
  proc.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
    err += chunk;
  });
  const exited = new Promise<number | string>((resolve) => {
    proc.on("exit", (code, signal) => {
      rejectFirst(new Error(`workbench exited (${code ?? signal}) before printing a line; stderr:\n${err}`));
      resolve(code ?? String(signal));
    });
  });
  firstLine.catch(() => {});
  return { proc, stdout: () => out, stderr: () => err, firstLine, exited };
}

/** Runs `workbench <args>` to the end. */
export async function runWorkbench(
  args: string[],
  env: Record<string, string | undefined> = {},
): Promise<{ code: number | string; stdout: string; stderr: string }> {
  const child = workbench(args, env);
  const code = await child.exited;
  return { code, stdout: child.stdout(), stderr: child.stderr() };
}

/** The URL printed by `serve`: "listening on http://127.0.0.1:PORT". */
export function listeningUrl(line: string): string {
  const m = /^listening on (http:\/\/127\.0\.0\.1:\d+)$/.exec(line);
  if (!m) throw new Error(`unexpected first line: ${JSON.stringify(line)}`);
  return m[1];
}

/** The JSON of a response; throws with the status and the body when it is not a 2xx. */
export async function json<T>(res: Promise<Response>): Promise<T> {
  const r = await res;
  const text = await r.text();
  if (!r.ok) throw new Error(`HTTP ${r.status}: ${text}`);
  return JSON.parse(text) as T;
}

/** POSTs `payload` as JSON. */
function postJson(url: string, payload: unknown): Promise<Response> {
  return fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(payload),
  });
}

/**
 * Over a listening workbench's HTTP API: registers the decision server at `serverUrl` (model `lexical`),
 * uploads `upload` and starts a run over every split of `dataset` at `concurrency`; resolves to the run.
 */
export async function startRunOverHttp<T>(
  url: string,
  opts: { serverUrl: string; upload: unknown; dataset: string; concurrency: number },
): Promise<T> {
  const server = await json<{ id: string }>(
    postJson(`${url}/api/servers`, {
      name: "slow",
      baseUrl: opts.serverUrl,
      models: ["lexical"],
      deterministic: true,
    }),
  );
  await json(postJson(`${url}/api/datasets`, opts.upload));
  return json<T>(
    postJson(`${url}/api/runs`, {
      dataset: opts.dataset,
      serverId: server.id,
      model: "lexical",
      splits: ["train", "calibration", "test"],
      concurrency: opts.concurrency,
    }),
  );
}
