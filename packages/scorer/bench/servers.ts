/** The benchmark's servers, each in its own process: the reference decision server and a constant-reply one. */
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** A server process and the base URL it listens on. */
export interface Server {
  url: string;
  child: ChildProcess;
}

/** The reply the constant server sends: what the reference server answers for the benchmark's 3 items. */
export const CONSTANT_REPLY = JSON.stringify({
  model: "lexical",
  answers: {
    q0: { type: "noul", noul: 0.8 },
    q1: {
      type: "choice",
      choice: "billing",
      confidence: 0.5,
      probabilities: { billing: 0.5, shipping: 0.3, support: 0.2 },
    },
    q2: {
      type: "choice",
      choice: "calm",
      confidence: 0.6,
      probabilities: { calm: 0.6, annoyed: 0.3, furious: 0.1 },
    },
  },
  usage: { input_tokens: 40, output_tokens: 3 },
  latency_ms: 0.1,
});

const CONSTANT = `
const reply = ${JSON.stringify(CONSTANT_REPLY)};
const server = require("node:http").createServer((req, res) => {
  req.resume();
  req.on("end", () => { res.setHeader("content-type", "application/json"); res.end(reply); });
});
server.keepAliveTimeout = 60000;
server.listen(0, "127.0.0.1", () => console.log("listening on http://127.0.0.1:" + server.address().port));
`;

const CLI = fileURLToPath(new URL("../../../apps/decision-server/dist/cli.js", import.meta.url));

/** Starts the reference decision server (`apps/decision-server`, built) on a free port. */
export const referenceServer = (...flags: string[]) => spawnServer([CLI, "--port", "0", ...flags]);

/** Starts a node:http server that answers every request with CONSTANT_REPLY. */
export const constantServer = () => spawnServer(["-e", CONSTANT]);

/** Starts a server in its own process and reads the address from its first line. */
async function spawnServer(args: string[]): Promise<Server> {
  const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "inherit"] });
  const url = await new Promise<string>((resolve, reject) => {
    let seen = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      seen += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(seen);
      if (match) resolve(match[1]);
    });
    child.on("exit", (code) => reject(new Error(`server exited with ${code}`)));
  });
  return { url, child };
}

/** CPU time (user + system) a process has used so far, in µs, from /proc (10 ms ticks); NaN off Linux. */
export function processCpuUs(pid: number | undefined): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) * 10_000;
  } catch {
    return Number.NaN;
  }
}
