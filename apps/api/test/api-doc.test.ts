// API.md is the contract the web app is written against: every error code the routes can answer is listed there.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "..");

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith(".ts") ? [join(dir, e.name)] : [],
  );
}

describe("API.md", () => {
  it("lists every error code the sources can answer", () => {
    const codes = new Set<string>();
    for (const file of sources(join(root, "src"))) {
      const text = readFileSync(file, "utf8");
      for (const m of text.matchAll(/ApiError\(\s*\d{3},\s*"([a-z_]+)"/g)) codes.add(m[1]);
      for (const m of text.matchAll(/conflict\([^;]*?,\s*"([a-z_]+)"\s*\)/gs)) codes.add(m[1]);
      for (const m of text.matchAll(/\?\s*"([a-z_]+)"\s*:\s*"([a-z_]+)"/g)) {
        if (/nothing_learned|cannot_fit/.test(m[0])) codes.add(m[1]).add(m[2]);
      }
    }
    expect(codes.size).toBeGreaterThan(10);
    const doc = readFileSync(join(root, "API.md"), "utf8");
    const missing = [...codes].filter((c) => !doc.includes(`\`${c}\``));
    expect(missing).toEqual([]);
  });
});
