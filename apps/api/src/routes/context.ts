/** What every route plugin of the API core is given. */

import type { RunEngine } from "../engine/engine.js";
import type { SecretBox } from "../secrets/box.js";
import type { OutboundPolicy } from "../servers/outbound.js";
import type { WorkbenchStorage } from "../storage/types.js";

/** The storage, the run engine and the secret box of one workbench. */
export interface AppContext {
  storage: WorkbenchStorage;
  engine: RunEngine;
  secrets: SecretBox;
  /** Which base URLs servers may have (servers/outbound.ts): the engine's policy. */
  outbound: OutboundPolicy;
}
