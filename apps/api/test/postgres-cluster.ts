/**
 * Vitest global setup of the api project: a PostgreSQL server for the tests that need one, once per vitest run.
 * `WORKBENCH_TEST_DATABASE_URL` when it is set (a database the tests may create databases beside); else a
 * throwaway cluster: initdb in a fresh temporary folder (as the `postgres` user when the tests run as root:
 * PostgreSQL refuses root), on a free port of 127.0.0.1 with its socket in that folder, stopped and removed at
 * the end (on failure and exit too). When none can be had, the tests that need it fail with the reason
 * (test/postgres.ts); the others run.
 */

import { execFileSync } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";

declare module "vitest" {
  export interface ProvidedContext {
    /** A URL of the test PostgreSQL server's `postgres` database, or "" when there is none. */
    postgresUrl: string;
    /** Why there is no test PostgreSQL server ("" when there is one). */
    postgresError: string;
  }
}

/** The folder of PostgreSQL's server programs: the newest of Debian's /usr/lib/postgresql/N/bin, else PATH. */
function binDir(): string {
  const root = "/usr/lib/postgresql";
  const versions = existsSync(root) ? readdirSync(root).filter((v) => /^\d+$/.test(v)) : [];
  const newest = versions.sort((a, b) => Number(b) - Number(a))[0];
  return newest ? join(root, newest, "bin") : "";
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

/** A throwaway cluster: its URL, and how to stop it and remove its folder. */
async function startCluster(): Promise<{ url: string; stop: () => void }> {
  const dir = mkdtempSync(join(tmpdir(), "wb-pg-"));
  const root = process.getuid?.() === 0;
  if (root) chownSync(dir, Number(execFileSync("id", ["-u", "postgres"]).toString()), -1);
  const bin = binDir();
  const run = (program: string, args: string[]) =>
    execFileSync(
      root ? "runuser" : join(bin, program),
      root ? ["-u", "postgres", "--", join(bin, program), ...args] : args,
      {
        stdio: "pipe",
      },
    );
  const data = join(dir, "data");
  let started = false;
  const stop = () => {
    if (started) {
      started = false;
      try {
        run("pg_ctl", ["-D", data, "-m", "fast", "-w", "stop"]);
      } catch {}
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    run("initdb", ["-D", data, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C", "-N"]);
    const port = await freePort();
    // no fsync: a test cluster is thrown away, and durability is not what its tests check
    const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`;
    started = true;
    run("pg_ctl", ["-D", data, "-l", join(dir, "log"), "-w", "-t", "60", "-o", options, "start"]);
    return { url: `postgres://postgres@127.0.0.1:${port}/postgres`, stop };
  } catch (err) {
    stop();
    throw err;
  }
}

export default async function setup(project: TestProject): Promise<() => void> {
  const given = process.env.WORKBENCH_TEST_DATABASE_URL;
  if (given) {
    project.provide("postgresUrl", given);
    project.provide("postgresError", "");
    return () => {};
  }
  try {
    const cluster = await startCluster();
    process.once("exit", cluster.stop);
    project.provide("postgresUrl", cluster.url);
    project.provide("postgresError", "");
    return cluster.stop;
  } catch (err) {
    const detail = (err as { stderr?: Buffer }).stderr?.toString().trim() || (err as Error).message;
    project.provide("postgresUrl", "");
    project.provide(
      "postgresError",
      `no test PostgreSQL: set WORKBENCH_TEST_DATABASE_URL or install PostgreSQL (${detail})`,
    );
    return () => {};
  }
}
