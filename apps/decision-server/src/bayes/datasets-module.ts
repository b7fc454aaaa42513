/** Loads `@decision-workbench/datasets` at run time, with a clear error when it is not built. */

import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import type { DatasetsModule } from "./dataset-types.js";

/** The datasets package the checkpoints train on. */
const DATASETS_PACKAGE = "@decision-workbench/datasets";

/** The datasets module and its package folder. */
export async function importDatasets(): Promise<{ module: DatasetsModule; packageDir: string }> {
  const specifier: string = DATASETS_PACKAGE;
  try {
    const module = (await import(specifier)) as DatasetsModule;
    const entry = createRequire(import.meta.url).resolve(specifier);
    return { module, packageDir: join(dirname(entry), "..") };
  } catch (error) {
    throw new Error(
      `the trained checkpoints need ${DATASETS_PACKAGE}, which could not be loaded (${(error as Error).message}); ` +
        `build it with: pnpm --filter ${DATASETS_PACKAGE} build`,
    );
  }
}
