// Compiles a copy of the library (this package's src, or another version's) and bench helpers to plain ES modules, so
// timing children run under plain node (tsx's loader slows Math.exp / Math.log several-fold in its whole process).
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const HERE = dirname(fileURLToPath(import.meta.url));
export const PKG = dirname(HERE);
const require = createRequire(import.meta.url);

/** tsc on srcDir (a src folder of this package, any version) into dir/dist, with this package's compiler options. */
export function compileLibrary(srcDir: string, dir: string): void {
  mkdirSync(dir, { recursive: true });
  const config = join(dir, "tsconfig.json");
  writeFileSync(
    config,
    JSON.stringify({
      extends: join(PKG, "tsconfig.json"),
      // the library needs no ambient types (no I/O); node's would not resolve from a temporary folder
      compilerOptions: {
        rootDir: srcDir,
        outDir: join(dir, "dist"),
        declaration: false,
        sourceMap: false,
        types: [],
      },
      include: [srcDir],
    }),
  );
  const r = spawnSync(process.execPath, [require.resolve("typescript/bin/tsc"), "-p", config], {
    encoding: "utf8",
  });
  if (r.status !== 0) throw new Error(`tsc failed on ${srcDir}: ${r.stdout}${r.stderr}`);
  writeFileSync(join(dir, "package.json"), '{ "type": "module" }\n');
}

/** The named bench/*.ts files transpiled into dir/bench, their "../src/" imports pointing at dir/dist. */
export function transpileBench(files: string[], dir: string): void {
  const ts = require("typescript") as typeof import("typescript");
  mkdirSync(join(dir, "bench"), { recursive: true });
  for (const f of files) {
    const src = readFileSync(join(HERE, f), "utf8").replaceAll('"../src/', '"../dist/');
    const js = ts.transpileModule(src, {
      compilerOptions: {
        module: ts.ModuleKind.ES2022,
        target: ts.ScriptTarget.ES2022,
        verbatimModuleSyntax: true,
      },
    }).outputText;
    writeFileSync(join(dir, "bench", f.replace(/\.ts$/, ".js")), js);
  }
  writeFileSync(join(dir, "package.json"), '{ "type": "module" }\n');
}
