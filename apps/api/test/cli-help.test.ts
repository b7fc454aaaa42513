/**
 * The workbench command's help: every command answers --help (and -h, and `workbench help COMMAND`) with its
 * usage on stdout and exit 0, each shows an example, and the examples work when pointed at a reference server.
 */

import { join } from "node:path";
import type { DecisionServerHandle } from "@decision-workbench/decision-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REFERENCE_URL } from "../src/cli/args.js";
import { inProcess } from "./cli-in-process.js";
import { reference, tempDir } from "./helpers.js";

const COMMANDS = ["serve", "worker", "tokens", "datasets", "run", "report", "fit", "check"];

const tmp = tempDir();
let ref: DecisionServerHandle;

beforeAll(async () => {
  ref = await reference();
});

afterAll(async () => {
  await ref.close();
  tmp.cleanup();
});

/** The example command lines of a help text: the indented `workbench ...` lines after "For example". */
function examples(help: string): string[] {
  const from = help.indexOf("For example");
  expect(from).toBeGreaterThan(-1);
  return help
    .slice(from)
    .split("\n")
    .filter((l) => l.startsWith("  workbench "))
    .map((l) => l.replace(/\s{2,}\(.*\)$/, "").trim());
}

/**
 * An example's arguments against the test's reference server (lexical model only), with its files in `dir`
 * and runs limited to 30 examples of a split.
 */
function pointed(line: string, dir: string): string[] {
  const args = line
    .replaceAll(REFERENCE_URL, ref.url)
    .replaceAll("workbench-latest", "lexical")
    .replaceAll("calibration.json", join(dir, "calibration.json"))
    .split(/\s+/)
    .slice(1);
  return args[0] === "run" || args[0] === "check" ? [...args, "--limit", "30"] : args;
}

describe("workbench --help", () => {
  for (const command of COMMANDS) {
    it(`${command} --help, -h and help ${command} print its usage and an example, exit 0`, async () => {
      const env = { WORKBENCH_DATA_DIR: join(tmp.dir, "help") };
      const long = await inProcess([command, "--help"], env);
      expect(long.code).toBe(0);
      expect(long.stderr).toBe("");
      expect(long.stdout).toMatch(new RegExp(`^workbench ${command}\\b`));
      expect(long.stdout).toContain("example");
      expect(examples(long.stdout).length).toBeGreaterThan(0);
      for (const line of examples(long.stdout)) expect(line.startsWith(`workbench ${command}`)).toBe(true);
      // flags before --help do not matter, and nothing starts (worker would need a database)
      expect(await inProcess([command, "--data-dir", "x", "-h"], env)).toEqual(long);
      expect(await inProcess(["help", command], env)).toEqual(long);
    });
  }

  it("workbench help lists every command, --split as a list with all, and an example session", async () => {
    const res = await inProcess(["help"], {});
    expect(res.code).toBe(0);
    for (const command of COMMANDS) expect(res.stdout).toMatch(new RegExp(`^  ${command} `, "m"));
    expect(res.stdout).toContain("--split calibration,test");
    expect(res.stdout).toContain("--split takes a list: train, calibration or test, comma-separated");
    expect(res.stdout).not.toContain("[--split test]");
    expect(examples(res.stdout)).toContain(
      `workbench run --dataset penguins --server ${REFERENCE_URL} --model workbench-latest --split calibration,test`,
    );
    const unknown = await inProcess(["help", "runs"], {});
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown command "runs"');
  });

  it("the example session of workbench help works against a reference server", async () => {
    const dir = join(tmp.dir, "session");
    const help = (await inProcess(["help"], {})).stdout;
    const lines = examples(help).filter((l) => !l.startsWith("workbench serve"));
    expect(lines.map((l) => l.split(" ")[1])).toEqual(["datasets", "run", "report", "fit", "check"]);
    for (const line of lines) {
      const res = await inProcess(pointed(line, dir), { WORKBENCH_DATA_DIR: dir });
      expect({ line, code: res.code, stderr: res.code === 0 ? "" : res.stderr }).toEqual({
        line,
        code: 0,
        stderr: "",
      });
    }
  });

  it("each command's own example works against a reference server (serve and worker aside)", async () => {
    const dir = join(tmp.dir, "own");
    for (const command of ["datasets", "tokens", "run", "report", "fit", "check"]) {
      const help = (await inProcess([command, "--help"], {})).stdout;
      for (const line of examples(help)) {
        const res = await inProcess(pointed(line, dir), { WORKBENCH_DATA_DIR: dir });
        expect({ line, code: res.code, stderr: res.code === 0 ? "" : res.stderr }).toEqual({
          line,
          code: 0,
          stderr: "",
        });
        if (command === "report") expect(res.stdout).toMatch(/ on calibration: n \d+[\s\S]* on test: n \d+/);
      }
    }
  });
});
