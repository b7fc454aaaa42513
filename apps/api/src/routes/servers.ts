/** /api/servers: decision servers (the key is write-only), and the check action. */

import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { Type } from "typebox";
import { newId } from "../engine/engine.js";
import { ApiError, badRequest, conflict, notFound } from "../errors.js";
import { checkServer } from "../servers/check.js";
import { secretContext } from "../servers/connect.js";
import { checkOutbound, rulesFor } from "../servers/outbound.js";
import { changedLimits, checkServerInput, displayBaseUrl, serverRow, serverView } from "../servers/view.js";
import { errorResponses, ForceQuery, IdParams, NoContent } from "../shapes/common.js";
import {
  SERVER_RUNS_LISTED,
  Server,
  ServerCheck,
  ServerCheckInput,
  ServerInput,
  ServerPatch,
  ServerRuns,
} from "../shapes/servers.js";
import type { ServerRow } from "../storage/types.js";
import type { AppContext } from "./context.js";

const tags = ["servers"];

/** The origin of a URL text, or the text itself when it does not parse (then never equal to a real origin). */
function originOf(url: string): string {
  try {
    return new URL(url.trim()).origin;
  } catch {
    return url;
  }
}

/**
 * Refuses a base URL change that would re-point what the workbench trusts: the embedded reference server's URL
 * (set by the workbench at each start; its loopback exemption must not follow a new host), and a server's stored
 * API key, which is never sent to a new origin unless it is given again (or dropped with `apiKey: null`).
 */
function refuseBaseUrlChange(
  row: ServerRow,
  stored: string,
  patch: { baseUrl?: string; apiKey?: string | null },
) {
  if (row.embedded) {
    throw conflict(
      "the embedded reference server's base URL is set by the workbench at each start; add another server for another URL",
      "server_embedded",
    );
  }
  if (
    row.apiKeySecret !== null &&
    patch.apiKey === undefined &&
    originOf(patch.baseUrl ?? "") !== originOf(stored)
  ) {
    throw badRequest(
      "this server has an API key, which is never sent to a new host: send it again with the new base URL (body.apiKey), or body.apiKey: null to drop it",
    );
  }
}

/** A model name that only stands in for "none typed yet" while an unsaved server's base URL is checked. */
const NO_MODEL_YET = "model-not-typed-yet";

/** The servers routes. */
export const serverRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  const { storage, secrets, engine, outbound } = ctx;

  async function mustGet(id: string): Promise<ServerRow> {
    const row = await storage.getServer(id);
    if (!row) throw notFound("server", id, "list the servers with GET /api/servers");
    return row;
  }

  app.get(
    "/api/servers",
    {
      schema: {
        tags,
        summary: "List servers",
        response: { 200: Type.Array(Server), ...errorResponses },
      },
    },
    async () => (await storage.listServers()).map(serverView),
  );

  app.post(
    "/api/servers",
    {
      schema: {
        tags,
        summary: "Add a server",
        body: ServerInput,
        response: { 201: Server, ...errorResponses },
      },
    },
    async (req, reply) => {
      const endpoint = checkServerInput(req.body);
      checkOutbound(req.body.baseUrl, rulesFor({ embedded: false }, outbound));
      const row = serverRow(newId("srv"), req.body, endpoint, secrets);
      await storage.insertServer(row);
      return reply.code(201).send(serverView(row));
    },
  );

  app.get(
    "/api/servers/:id",
    {
      schema: {
        tags,
        summary: "One server",
        params: IdParams,
        response: { 200: Server, ...errorResponses },
      },
    },
    async (req) => serverView(await mustGet(req.params.id)),
  );

  app.patch(
    "/api/servers/:id",
    {
      schema: {
        tags,
        summary: "Change a server (apiKey: null clears the key; an omitted field is kept)",
        params: IdParams,
        body: ServerPatch,
        response: { 200: Server, ...errorResponses },
      },
    },
    async (req) => {
      const row = await mustGet(req.params.id);
      const patch = req.body;
      const stored = secrets.decrypt(row.baseUrlSecret, secretContext(row.id, "baseUrl"));
      if (patch.baseUrl !== undefined) refuseBaseUrlChange(row, stored, patch);
      const baseUrl = patch.baseUrl ?? stored;
      const merged: ServerInput = {
        name: patch.name ?? row.name,
        baseUrl,
        models: patch.models ?? row.models,
        extraBody: patch.extraBody ?? row.extraBody,
        timeout: patch.timeout ?? row.timeout,
        retries: patch.retries ?? row.retries,
        backoff: patch.backoff ?? row.backoff,
        deterministic: patch.deterministic ?? row.deterministic,
        ...changedLimits(row, patch),
      };
      const endpoint = checkServerInput(merged);
      // A new base URL follows the policy as any server's does (the embedded server's cannot change).
      if (patch.baseUrl !== undefined) checkOutbound(baseUrl, rulesFor({ embedded: false }, outbound));
      const next: ServerRow = {
        ...row,
        name: merged.name,
        baseUrl: displayBaseUrl(baseUrl),
        baseUrlSecret:
          patch.baseUrl === undefined
            ? row.baseUrlSecret
            : secrets.encrypt(baseUrl.trim(), secretContext(row.id, "baseUrl")),
        endpoint,
        models: merged.models,
        extraBody: merged.extraBody ?? {},
        timeout: merged.timeout ?? row.timeout,
        retries: merged.retries ?? row.retries,
        backoff: merged.backoff ?? row.backoff,
        deterministic: merged.deterministic ?? row.deterministic,
        requestsPerMinute: merged.requestsPerMinute ?? null,
        inputTokensPerMinute: merged.inputTokensPerMinute ?? null,
        inputPricePerMillion: merged.inputPricePerMillion ?? null,
        outputPricePerMillion: merged.outputPricePerMillion ?? null,
        apiKeySecret:
          patch.apiKey === undefined
            ? row.apiKeySecret
            : patch.apiKey === null
              ? null
              : secrets.encrypt(patch.apiKey, secretContext(row.id, "apiKey")),
      };
      await storage.updateServer(next);
      // runs at work on it are paced by the new limits from their next request
      engine.lanes.update(next.id, {
        requestsPerMinute: next.requestsPerMinute,
        inputTokensPerMinute: next.inputTokensPerMinute,
      });
      return serverView(next);
    },
  );

  app.delete(
    "/api/servers/:id",
    {
      schema: {
        tags,
        summary: "Delete a server (409 while runs use it, unless ?force=true)",
        params: IdParams,
        querystring: ForceQuery,
        response: { 204: NoContent, ...errorResponses },
      },
    },
    async (req, reply) => {
      const row = await mustGet(req.params.id);
      if (row.embedded) {
        throw conflict(
          "the embedded reference server cannot be deleted: the workbench registers it and points it at the reference server it starts",
          "server_embedded",
        );
      }
      const runs = await storage.countRunsOfServer(row.id);
      if (runs > 0 && !req.query.force) {
        throw conflict(
          `${runs} run(s) use server "${row.name}"; their results stay either way. Pass ?force=true to delete it anyway (its running runs are cancelled)`,
          "server_in_use",
        );
      }
      for (const run of await storage.listStoredRuns({ serverId: row.id })) {
        if (engine.isActive(run.id)) await engine.cancel(run.id);
      }
      await storage.deleteServer(row.id);
      engine.lanes.remove(row.id);
      return reply.code(204).send(null);
    },
  );

  app.get(
    "/api/servers/:id/runs",
    {
      schema: {
        tags,
        summary: `The runs that use a server: their count and the newest ${SERVER_RUNS_LISTED}`,
        params: IdParams,
        response: { 200: ServerRuns, ...errorResponses },
      },
    },
    async (req) => {
      const row = await mustGet(req.params.id);
      const runs = await storage.listStoredRuns({ serverId: row.id });
      return {
        count: runs.length,
        runs: runs.slice(0, SERVER_RUNS_LISTED).map((r) => ({
          id: r.id,
          name: r.name ?? null,
          dataset: r.dataset,
          model: r.model,
          status: r.status,
          createdAt: r.createdAt,
        })),
      };
    },
  );

  app.post(
    "/api/servers/check",
    {
      schema: {
        tags,
        summary:
          "Check a server before adding it: list its models and send one probe (to the first model given, else the first listed)",
        body: ServerCheckInput,
        response: { 200: ServerCheck, ...errorResponses },
      },
    },
    async (req) => {
      const typed = req.body.models ?? [];
      const input: ServerInput = {
        ...req.body,
        name: "unsaved server",
        models: typed.length ? typed : [NO_MODEL_YET],
      };
      const endpoint = checkServerInput(input);
      checkOutbound(input.baseUrl, rulesFor({ embedded: false }, outbound));
      // nothing is stored: the row only carries the settings (encrypted as a stored one's are) to the check; with
      // no model typed, the check probes the first model the server lists
      const row = serverRow(newId("srv"), { ...input, models: typed }, endpoint, secrets);
      try {
        return await checkServer(row, secrets, outbound);
      } catch (err) {
        throw new ApiError(500, "check_failed", `the check could not run: ${(err as Error).message}`);
      }
    },
  );

  app.post(
    "/api/servers/:id/check",
    {
      schema: {
        tags,
        summary: "List the server's models and send one probe question",
        params: IdParams,
        response: { 200: ServerCheck, ...errorResponses },
      },
    },
    async (req) => {
      const row = await mustGet(req.params.id);
      try {
        return await checkServer(row, secrets, outbound);
      } catch (err) {
        throw new ApiError(500, "check_failed", `the check could not run: ${(err as Error).message}`);
      }
    },
  );
};
