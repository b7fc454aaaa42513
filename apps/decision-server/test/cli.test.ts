import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { parseArgs } from "../src/cli/args.js";
import { UsageError } from "../src/cli/flags.js";
import { startDecisionServer } from "../src/index.js";
import { post, withoutLatency } from "./helpers.js";

const packageDir = fileURLToPath(new URL("..", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "decision-server-cli-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Running {
  child: ChildProcess;
  firstLine: string;
  url: string;
  exited: Promise<{ code: number | null; stderr: string }>;
}

/** Runs the CLI from its TypeScript source and waits for its first line (or its exit). */
function runCli(args: string[], env: Record<string, string> = {}): Promise<Running> {
  const child = spawn(process.execPath, ["--import", "tsx", "src/cli.ts", ...args], {
    cwd: packageDir,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr?.on("data", (c: Buffer) => {
    stderr += c.toString();
  });
  const exited = new Promise<{ code: number | null; stderr: string }>((resolve) =>
    child.on("exit", (code) => resolve({ code, stderr })),
  );
  return new Promise((resolve, reject) => {
    let out = "";
    child.stdout?.on("data", (c: Buffer) => {
      out += c.toString();
      const nl = out.indexOf("\n");
      if (nl >= 0) {
        const firstLine = out.slice(0, nl);
        resolve({ child, firstLine, url: firstLine.replace("listening on ", ""), exited });
      }
    });
    exited.then(() => resolve({ child, firstLine: "", url: "", exited }), reject);
  });
}

const plan = join(dir, "faults.json");
writeFileSync(plan, JSON.stringify({ rules: [{ on: [1], fault: { kind: "status", status: 503 } }] }));

const speciesBody = {
  model: "workbench-latest",
  state: { Island: "Dream", "Beak Length (mm)": 44.5, "Beak Depth (mm)": 18.3, "Flipper Length (mm)": 193 },
  questions: {
    q0: {
      type: "choice",
      instructions: "Which penguin species is this bird?",
      criteria: { Adelie: null, Chinstrap: null, Gentoo: null },
    },
  },
};

describe("decision-server command line", () => {
  it("prints the address first, applies --alias, --faults and --api-key, answers like the library, stops on SIGTERM", async () => {
    const run = await runCli([
      "--port",
      "0",
      "--alias",
      "workbench-latest=bayes-1",
      "--faults",
      plan,
      "--api-key",
      "k-123",
    ]);
    try {
      expect(run.firstLine).toMatch(/^listening on http:\/\/127\.0\.0\.1:\d+$/);
      expect(run.url).not.toMatch(/:0$/);
      const handle = { url: run.url, requests: [], close: async () => {} };
      const auth = { authorization: "Bearer k-123" };
      expect((await post(handle, speciesBody, auth)).status).toBe(503);
      expect((await post(handle, speciesBody)).status).toBe(401);
      const reply = await post(handle, speciesBody, auth);
      expect(reply.status).toBe(200);
      expect((reply.json as { model: string }).model).toBe("bayes-1");
      const library = await startDecisionServer({ port: 0, alias: "bayes-1" });
      const same = await post(library, speciesBody);
      await library.close();
      expect(withoutLatency(reply.text)).toBe(withoutLatency(same.text));
    } finally {
      run.child.kill("SIGTERM");
    }
    expect((await run.exited).code).toBe(0);
  });

  it("reads the key from DECISION_SERVER_API_KEY", async () => {
    const run = await runCli(["--port=0"], { DECISION_SERVER_API_KEY: "from-env" });
    try {
      const handle = { url: run.url, requests: [], close: async () => {} };
      expect((await post(handle, speciesBody)).status).toBe(401);
      expect((await post(handle, speciesBody, { authorization: "Bearer from-env" })).status).toBe(200);
    } finally {
      run.child.kill("SIGINT");
    }
    expect((await run.exited).code).toBe(0);
  });

  it("limits POST /v1/decision with --rate-limit, answering 429 with Retry-After beyond it", async () => {
    const run = await runCli(["--port", "0", "--rate-limit", "1/m"]);
    try {
      const handle = { url: run.url, requests: [], close: async () => {} };
      expect((await post(handle, speciesBody)).status).toBe(200);
      const refused = await post(handle, speciesBody);
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(59);
      expect((refused.json as { detail: string }).detail).toContain("at most 1 request per minute");
    } finally {
      run.child.kill("SIGTERM");
    }
    expect((await run.exited).code).toBe(0);
  });

  it.each([
    [["--rate-limit", "lots"], "--rate-limit: a rate limit is N/s or N/m"],
    [["--port", "http"], "--port must be an integer from 0 to 65535, got 'http'"],
    [["--alias", "latest=bayes-1"], "--alias must be workbench-latest=VERSION"],
    [["--verbose"], "unknown flag '--verbose' (the flags of decision-server: --port VALUE"],
  ])("exits 2 with usage for %j", async (args, message) => {
    const run = await runCli(args);
    const { code, stderr } = await run.exited;
    expect(code).toBe(2);
    expect(stderr).toContain(message);
    expect(stderr).toContain("usage: decision-server");
  });

  it("exits 1 naming the problem of a bad fault plan file", async () => {
    const bad = join(dir, "bad.json");
    writeFileSync(bad, JSON.stringify({ rules: [{ fault: { kind: "boom" } }] }));
    const run = await runCli(["--port", "0", "--faults", bad]);
    const { code, stderr } = await run.exited;
    expect(code).toBe(1);
    expect(stderr).toContain("invalid fault plan: rules[0].fault.kind must be one of");
  });
});

describe("parseArgs", () => {
  it("defaults to 127.0.0.1:8009 with no key, faults or alias", () => {
    expect(parseArgs([], {})).toEqual({ port: 8009, host: "127.0.0.1", help: false });
  });

  it("reads every flag, with a value after it or after '='", () => {
    expect(
      parseArgs(
        [
          "--port=0",
          "--host",
          "0.0.0.0",
          "--api-key",
          "k",
          "--faults=f.json",
          "--alias",
          "workbench-latest=bayes-1",
        ],
        { DECISION_SERVER_API_KEY: "env" },
      ),
    ).toEqual({ port: 0, host: "0.0.0.0", apiKey: "k", faultsFile: "f.json", alias: "bayes-1", help: false });
  });

  it("refuses a flag without its value", () => {
    expect(() => parseArgs(["--faults"], {})).toThrow(UsageError);
    expect(() => parseArgs(["--faults"], {})).toThrow(
      "--faults needs a value: --faults VALUE or --faults=VALUE",
    );
  });

  it("says what is wrong and what would be right for a value given to a switch or a stray argument", () => {
    expect(() => parseArgs(["--help=yes"], {})).toThrow(
      "--help is a switch and takes no value: --help alone",
    );
    expect(() => parseArgs(["8009"], {})).toThrow(
      "unexpected argument '8009': this command takes flags only (the flags of decision-server: --port VALUE, --host VALUE,",
    );
  });

  it("reads -h and --help as a request for the usage text", () => {
    expect(parseArgs(["-h"], {}).help).toBe(true);
    expect(parseArgs(["--help"], {}).help).toBe(true);
  });
});
