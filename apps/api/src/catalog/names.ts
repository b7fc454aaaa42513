/** Names of every dataset (bundled and uploaded), without loading any. */

import type { WorkbenchStorage } from "../storage/types.js";
import { bundledNames } from "./bundled.js";

/** Bundled names, then upload names. */
export async function catalogNames(storage: WorkbenchStorage): Promise<string[]> {
  return [...bundledNames(), ...(await storage.listUploads()).map((u) => u.name)];
}
