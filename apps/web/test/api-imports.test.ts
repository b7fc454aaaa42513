// The web app takes its API shapes from one place: types only from @decision-workbench/api/shapes, values only
// from @decision-workbench/api/limits, which imports nothing (so no node code reaches the bundle).
import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const src = join(import.meta.dirname, "..", "src");

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : /\.tsx?$/.test(e.name) ? [join(dir, e.name)] : [],
  );
}

describe("imports of the API", () => {
  const imports = sources(src).flatMap((file) =>
    [
      ...readFileSync(file, "utf8").matchAll(
        /^import (type )?[^;]*? from "(@decision-workbench\/api[^"]*)";/gms,
      ),
    ].map((m) => ({ file: file.slice(src.length + 1), typeOnly: m[1] !== undefined, from: m[2] })),
  );

  it("are type-only from shapes, values only from limits", () => {
    expect(imports.length).toBeGreaterThan(30);
    const wrong = imports.filter((i) =>
      i.from === "@decision-workbench/api/shapes" ? !i.typeOnly : i.from !== "@decision-workbench/api/limits",
    );
    expect(wrong).toEqual([]);
  });

  it("bring in a limits module with no imports of its own", () => {
    const require = createRequire(import.meta.url);
    const limits = readFileSync(require.resolve("@decision-workbench/api/limits"), "utf8");
    expect(limits).toContain("CONCURRENCY");
    expect(limits).not.toMatch(/\bimport\b|\brequire\(/);
  });
});
