import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

// V8 compiles a long loop while it runs (on-stack replacement) and keeps that code for later calls. Code after such a
// loop that needs type feedback the first call never gave it, and code that checks the hidden class of an object made
// per call (freed at the next full garbage collection), made the library's hot loops bail out of their compiled code
// or be compiled again on every call. This runs the report, a paired comparison, the class views and the fits in a
// child process with V8's tracing on (compilation synchronous, so the trace does not depend on timing) and checks that
// after three warm-up calls no function of the library bails out, is thrown away or is compiled again.

const PKG = dirname(dirname(fileURLToPath(import.meta.url)));
const WARM_UP = 3;

/** Names of the library's functions (declarations, and the calibrators' fit / apply methods). */
function libraryFunctions(): Set<string> {
  const names = new Set(["fit", "apply"]);
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, e.name);
      if (e.isDirectory()) walk(path);
      else if (e.name.endsWith(".ts")) {
        for (const m of readFileSync(path, "utf8").matchAll(/\bfunction\s+([A-Za-z_$][\w$]*)/g))
          names.add(m[1]);
      }
    }
  };
  walk(join(PKG, "src"));
  return names;
}

interface TraceEvent {
  call: number;
  fn: string;
  kind: "bailout" | "invalidated" | "compiled" | "compiled OSR";
  line: string;
}

function parseTrace(text: string): TraceEvent[] {
  const events: TraceEvent[] = [];
  let call = -1;
  for (const line of text.split("\n")) {
    const marker = /^=== call (\d+)/.exec(line);
    if (marker) {
      call = Number(marker[1]);
      continue;
    }
    let fn: string | undefined;
    let kind: TraceEvent["kind"] | undefined;
    if (line.startsWith("[bailout")) {
      fn = /<JSFunction (\S+)/.exec(line)?.[1];
      kind = "bailout";
    } else if (line.startsWith("[marking dependent code")) {
      fn = /<SharedFunctionInfo ([^>\s]+)>/.exec(line)?.[1];
      kind = "invalidated";
    } else if (line.startsWith("[completed compiling")) {
      fn = /<JSFunction (\S+)/.exec(line)?.[1];
      kind = line.includes(" OSR") ? "compiled OSR" : "compiled";
    }
    if (fn && kind) events.push({ call, fn, kind, line: line.slice(0, 200) });
  }
  return events;
}

describe("hot loops stay optimised across calls", () => {
  it("after warm-up, no library function bails out, is invalidated or is compiled again (fresh data, a GC before each call)", () => {
    const r = spawnSync(
      process.execPath,
      [
        "--import",
        "tsx",
        "--expose-gc",
        "--trace-opt",
        "--trace-deopt",
        "--no-concurrent-recompilation",
        "--no-concurrent-osr",
        "test/stay-optimised.child.ts",
        "8",
      ],
      { cwd: PKG, encoding: "utf8", maxBuffer: 256 * 2 ** 20 },
    );
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    expect(r.stdout).toContain("=== done");
    const events = parseTrace(r.stdout);
    const names = libraryFunctions();
    // the trace is on: the bootstrap's pass over the items was compiled (on-stack and whole) during the warm-up
    const early = events.filter((e) => e.call < WARM_UP && e.fn === "drawAndPass").map((e) => e.kind);
    expect(early).toContain("compiled OSR");
    expect(early).toContain("compiled");
    const seen = new Set<string>();
    const late: string[] = [];
    for (const e of events) {
      if (!names.has(e.fn)) continue;
      const again = (e.kind === "compiled" || e.kind === "compiled OSR") && seen.has(`${e.fn} ${e.kind}`);
      seen.add(`${e.fn} ${e.kind}`);
      if (e.call >= WARM_UP && (e.kind === "bailout" || e.kind === "invalidated" || again)) {
        late.push(`call ${e.call}: ${e.line}`);
      }
    }
    expect(late).toEqual([]);
  }, 120_000);
});
