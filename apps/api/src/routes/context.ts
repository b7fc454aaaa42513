/** What every route plugin of the API core is given. */

import type { IncomingMessage, ServerResponse } from "node:http";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyBaseLogger, FastifyInstance, RawServerDefault } from "fastify";
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

/** A Fastify instance whose routes take their types from their TypeBox schemas (src/shapes). */
export type TypedApp = FastifyInstance<
  RawServerDefault,
  IncomingMessage,
  ServerResponse,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;
