/** Imports a module that another engineer may not have written yet: undefined while it does not exist. */

import { existsSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";

/**
 * `import(url)` of a sibling module given as its built `.js` URL; when only the `.ts` source exists (tests
 * and tsx run the sources) that is imported; when neither exists, undefined. Errors inside the module throw.
 */
export async function importOptional<T>(url: URL): Promise<T | undefined> {
  const js = fileURLToPath(url);
  if (existsSync(js)) return (await import(url.href)) as T;
  const ts = js.replace(/\.js$/, ".ts");
  if (ts !== js && existsSync(ts)) return (await import(pathToFileURL(ts).href)) as T;
  return undefined;
}
