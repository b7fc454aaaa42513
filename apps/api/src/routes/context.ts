/** What every route plugin of the API core is given. */

import type { RunEngine } from "../engine/engine.js";
import type { SecretBox } from "../secrets/box.js";
import type { WorkbenchStorage } from "../storage/types.js";

/** The storage, the run engine and the secret box of one workbench. */
export interface AppContext {
  storage: WorkbenchStorage;
  engine: RunEngine;
  secrets: SecretBox;
  /**
   * Which base URLs a server may have: link-local and metadata addresses never; private and loopback ones only
   * when `allowPrivate` (always without a token, in token mode only with `--allow-private-servers`).
   */
  outbound: { allowPrivate: boolean };
}
