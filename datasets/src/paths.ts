import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const require = createRequire(import.meta.url);

/** The folder of this package (holds tasks/ and bundled/), from src/ or dist/ alike. */
export const PACKAGE_DIR = join(dirname(fileURLToPath(import.meta.url)), "..");

/** The installed folder of an npm package, found through Node's resolution from this package. */
export function packageDir(name: string): string {
  try {
    return dirname(require.resolve(`${name}/package.json`));
  } catch {
    // The package's "exports" hides package.json: resolve its entry point and walk up.
    let dir = dirname(require.resolve(name));
    while (dir !== dirname(dir)) {
      const pj = join(dir, "package.json");
      if (existsSync(pj) && (JSON.parse(readFileSync(pj, "utf8")) as { name?: string }).name === name)
        return dir;
      dir = dirname(dir);
    }
    throw new Error(`cannot find the installed folder of ${name}; run pnpm install in the workspace`);
  }
}
