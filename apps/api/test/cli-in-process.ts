/** Runs the workbench command line in this process, capturing what it writes. */

import { vi } from "vitest";
import { main } from "../src/cli/dispatch.js";

/** `main(args)` with `env` added to process.env, stdout and stderr captured; its exit code and what it wrote. */
export async function inProcess(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  const out = vi.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => {
    stdout += String(chunk);
    return true;
  });
  const err = vi.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => {
    stderr += String(chunk);
    return true;
  });
  const saved = { ...process.env };
  Object.assign(process.env, env);
  try {
    return { code: await main(args), stdout, stderr };
  } finally {
    out.mockRestore();
    err.mockRestore();
    process.env = saved;
  }
}

/** The arguments of `workbench run` of the penguins dataset against `server` with the lexical model, `limit` a split. */
export function penguinsRun(server: string, limit: number): string[] {
  return ["run", "--dataset", "penguins", "--server", server, "--model", "lexical", "--limit", String(limit)];
}
