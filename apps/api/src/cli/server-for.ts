/** The stored server a command-line run uses: found by its exact base URL, or added. */

import { newId } from "../engine/engine.js";
import { ApiError } from "../errors.js";
import type { SecretBox } from "../secrets/box.js";
import { fullBaseUrl, secretContext } from "../servers/connect.js";
import { checkOutbound, LOCAL_POLICY, rulesFor } from "../servers/outbound.js";
import { changedLimits, checkServerInput, serverRow } from "../servers/view.js";
import type { ServerInput } from "../shapes/servers.js";
import type { SqliteStorage } from "../storage/sqlite.js";
import { UsageError } from "./args.js";

/**
 * Finds the stored server with this exact base URL (reusing its id and adding the model), or adds one. A key
 * given replaces the stored one (kept encrypted); no key keeps what is stored.
 */
export async function serverFor(
  storage: SqliteStorage,
  box: SecretBox,
  baseUrl: string,
  model: string,
  apiKey: string | undefined,
  settings: Pick<
    ServerInput,
    | "timeout"
    | "retries"
    | "requestsPerMinute"
    | "inputTokensPerMinute"
    | "inputPricePerMillion"
    | "outputPricePerMillion"
  > = {},
): Promise<string> {
  for (const s of await storage.listServers()) {
    let full: string;
    try {
      full = fullBaseUrl(s, box);
    } catch {
      continue;
    }
    if (full !== baseUrl.trim()) continue;
    await storage.updateServer({
      ...s,
      models: s.models.includes(model) ? s.models : [...s.models, model],
      apiKeySecret:
        apiKey === undefined ? s.apiKeySecret : box.encrypt(apiKey, secretContext(s.id, "apiKey")),
      timeout: settings.timeout ?? s.timeout,
      retries: settings.retries ?? s.retries,
      ...changedLimits(s, settings),
    });
    return s.id;
  }
  let endpoint: string;
  let input: ServerInput;
  try {
    // The command line is local use: private and loopback servers allowed, link-local and metadata never.
    endpoint = checkServerInput({ name: "--server", baseUrl, models: [model], ...settings }, "--server");
    checkOutbound(baseUrl, rulesFor({ embedded: false }, LOCAL_POLICY), "--server");
    input = {
      name: new URL(baseUrl.trim()).host,
      baseUrl,
      models: [model],
      apiKey: apiKey ?? null,
      ...settings,
    };
  } catch (err) {
    if (err instanceof ApiError) {
      throw new UsageError(err.message.startsWith("--server") ? err.message : `--server: ${err.message}`);
    }
    throw err;
  }
  const row = serverRow(newId("srv"), input, endpoint, box);
  await storage.insertServer(row);
  return row.id;
}
