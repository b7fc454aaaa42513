/** The check action: list the server's models (GET /v1/models where offered) and send one probe question. */

import { performance } from "node:perf_hooks";
import { ServiceError } from "@decision-workbench/scorer";
import type { SecretBox } from "../secrets/box.js";
import type { ServerRow } from "../storage/types.js";
import { apiKeyOf, deciderFor, fullBaseUrl } from "./connect.js";

/** What POST /api/servers/:id/check answers. */
export interface CheckResult {
  ok: boolean;
  models: { name: string; description?: string }[] | null;
  modelsError?: string;
  probe: {
    model: string;
    status: "answered" | "unknown" | "escalated" | "error";
    answer?: string | string[];
    confidence?: number;
    reason?: string;
    ms: number;
    servedBy?: string;
  };
}

/** The probe: a yes/no question any model can answer. */
export const PROBE = {
  state: "The parcel arrived two days late and the box was crushed.",
  item: {
    name: "probe",
    kind: "yesno" as const,
    question: "Does the text describe a problem with a delivery?",
  },
};

async function listModels(
  server: ServerRow,
  box: SecretBox,
): Promise<{ models: CheckResult["models"]; error?: string }> {
  const url = new URL(fullBaseUrl(server, box));
  const headers: Record<string, string> = { accept: "application/json" };
  const key = apiKeyOf(server, box);
  if (key !== undefined) headers.authorization = `Bearer ${key}`;
  else if (url.username || url.password) {
    const basic = `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`;
    headers.authorization = `Basic ${Buffer.from(basic).toString("base64")}`;
  }
  url.username = "";
  url.password = "";
  url.hash = "";
  url.pathname = `${url.pathname.replace(/\/+$/, "")}/v1/models`;
  const shown = `${server.baseUrl}/v1/models`;
  let res: Response;
  try {
    res = await fetch(url, { headers, signal: AbortSignal.timeout(server.timeout * 1000) });
  } catch (err) {
    const cause = (err as { cause?: { code?: string } }).cause?.code ?? (err as Error).name;
    return { models: null, error: `GET ${shown} failed: ${cause}` };
  }
  const text = await res.text();
  if (res.status === 404 || res.status === 405 || res.status === 501) {
    return { models: null, error: `the server does not offer GET ${shown} (HTTP ${res.status})` };
  }
  if (res.status === 401 || res.status === 403) {
    return { models: null, error: `GET ${shown} answered HTTP ${res.status}: check the API key` };
  }
  if (!res.ok) return { models: null, error: `GET ${shown} answered HTTP ${res.status}` };
  try {
    const body = JSON.parse(text) as unknown;
    const list = Array.isArray(body)
      ? body
      : Array.isArray((body as { models?: unknown }).models)
        ? (body as { models: unknown[] }).models
        : Array.isArray((body as { data?: unknown }).data)
          ? (body as { data: unknown[] }).data
          : null;
    if (!list) return { models: null, error: `GET ${shown} did not answer with a list of models` };
    const models = list
      .map((m) => {
        if (typeof m === "string") return { name: m };
        const o = m as { name?: unknown; id?: unknown; description?: unknown };
        const name = typeof o.name === "string" ? o.name : typeof o.id === "string" ? o.id : null;
        if (name === null) return null;
        return typeof o.description === "string" ? { name, description: o.description } : { name };
      })
      .filter((m): m is { name: string; description?: string } => m !== null);
    return { models };
  } catch {
    return { models: null, error: `GET ${shown} did not answer with JSON` };
  }
}

async function probe(server: ServerRow, box: SecretBox): Promise<CheckResult["probe"]> {
  const model = server.models[0];
  const started = performance.now();
  const ms = () => Math.round((performance.now() - started) * 10) / 10;
  try {
    const decider = deciderFor(server, box, model);
    const [d] = await decider.decideAll(PROBE.state, [PROBE.item], { cache: false });
    const record = d.extra.decision;
    const out: CheckResult["probe"] = { model, status: d.status, ms: record.ms ?? ms() };
    if (record.served_by) out.servedBy = record.served_by;
    if (d.status === "escalated") out.reason = d.reason;
    else {
      if (d.status === "answered") out.answer = d.answer;
      else out.reason = d.reason;
      out.confidence = d.confidence;
    }
    return out;
  } catch (err) {
    const reason =
      err instanceof ServiceError ? err.message : `the probe could not be sent: ${(err as Error).message}`;
    return { model, status: "error", reason, ms: ms() };
  }
}

/** Lists models and sends the probe; `ok` when the probe was answered (or Unknown). */
export async function checkServer(server: ServerRow, box: SecretBox): Promise<CheckResult> {
  const [listed, probed] = await Promise.all([listModels(server, box), probe(server, box)]);
  const result: CheckResult = {
    ok: probed.status === "answered" || probed.status === "unknown",
    models: listed.models,
    probe: probed,
  };
  if (listed.error) result.modelsError = listed.error;
  return result;
}
