/**
 * The check action: list the server's models (GET /v1/models where offered) and send one probe question, both
 * through the outbound policy (outbound-opener.ts). What it answers quotes at most a short, sanitised snippet of
 * any remote text.
 */

import { performance } from "node:perf_hooks";
import { errorText, redact, ServiceError } from "@decision-workbench/scorer";
import type { SecretBox } from "../secrets/box.js";
import type { ServerCheck } from "../shapes/servers.js";
import type { ServerRow } from "../storage/types.js";
import { apiKeyOf, deciderFor, fullBaseUrl, outboundRefusal } from "./connect.js";
import { type OutboundPolicy, rulesFor } from "./outbound.js";
import { outboundOpener } from "./outbound-opener.js";
import { SNIPPET_CHARS, snippet } from "./outbound-text.js";

/** ssrf.test.ts imports the answer's type by this name. */

/** Models listed at most, and characters of a name or description kept. */
const MODELS_LISTED = 200;

/** The probe: a yes/no question any model can answer. */
const PROBE = {
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
  outbound: OutboundPolicy,
): Promise<{ models: ServerCheck["models"]; error?: string }> {
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
  const refused = outboundRefusal(server, box, outbound);
  if (refused) return { models: null, error: `GET ${shown} was not sent: ${refused}` };
  const open = outboundOpener(rulesFor(server, outbound));
  let status: number;
  let text: string;
  try {
    const res = await open({ url: url.href, method: "GET", headers, timeout: server.timeout });
    status = res.status;
    text = res.body;
  } catch (err) {
    return { models: null, error: `GET ${shown} failed: ${redact((err as Error).message, key)}` };
  }
  if (status === 404 || status === 405 || status === 501) {
    return { models: null, error: `the server does not offer GET ${shown} (HTTP ${status})` };
  }
  if (status === 401 || status === 403) {
    return { models: null, error: `GET ${shown} answered HTTP ${status}: check the API key` };
  }
  // an error reply's body is already a short, sanitised snippet (outbound-opener.ts); a redirect names its origin
  if (status < 200 || status >= 300) {
    const said = errorText(text);
    return { models: null, error: `GET ${shown} answered HTTP ${status}${said ? `: ${said}` : ""}` };
  }
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
      .slice(0, MODELS_LISTED)
      .map((m) => {
        if (typeof m === "string") return { name: snippet(m, [key]) };
        const o = m as { name?: unknown; id?: unknown; description?: unknown };
        const name = typeof o.name === "string" ? o.name : typeof o.id === "string" ? o.id : null;
        if (name === null) return null;
        return typeof o.description === "string"
          ? { name: snippet(name, [key]), description: snippet(o.description, [key]) }
          : { name: snippet(name, [key]) };
      })
      .filter((m): m is { name: string; description?: string } => m !== null && m.name !== "");
    return { models };
  } catch {
    return { models: null, error: `GET ${shown} did not answer with JSON` };
  }
}

async function probe(
  server: ServerRow,
  box: SecretBox,
  outbound: OutboundPolicy,
): Promise<ServerCheck["probe"]> {
  const model = server.models[0];
  const key = apiKeyOf(server, box);
  const started = performance.now();
  const ms = () => Math.round((performance.now() - started) * 10) / 10;
  try {
    const decider = deciderFor(server, box, model, outbound);
    const [d] = await decider.decideAll(PROBE.state, [PROBE.item], { cache: false });
    const record = d.extra.decision;
    const out: ServerCheck["probe"] = { model, status: d.status, ms: record.ms ?? ms() };
    if (record.served_by) out.servedBy = snippet(record.served_by, [key]);
    if (d.status === "escalated") out.reason = shownReason(d.reason, key);
    else {
      if (d.status === "answered") out.answer = d.answer;
      else out.reason = shownReason(d.reason, key);
      out.confidence = d.confidence;
    }
    return out;
  } catch (err) {
    const reason =
      err instanceof ServiceError ? err.message : `the probe could not be sent: ${(err as Error).message}`;
    return { model, status: "error", reason: shownReason(reason, key), ms: ms() };
  }
}

/**
 * A probe's reason as the check shows it: the scorer's sentence around at most a snippet of remote text
 * (outbound-opener.ts cuts error replies), sanitised once more and bounded as a whole.
 */
function shownReason(reason: string, key: string | undefined): string {
  return snippet(reason, [key], 2 * SNIPPET_CHARS + 200, false);
}

/** The probe of a server that named no model and listed none. */
const NO_PROBE: ServerCheck["probe"] = {
  model: "",
  status: "error",
  reason:
    "no probe was sent: the server listed no model and none was given; type a model name and check again",
  ms: 0,
};

/**
 * Lists models and sends the probe to the server's first model; `ok` when the probe was answered (or Unknown). A
 * server with no model yet (checked before it is added) is probed on the first model it lists.
 */
export async function checkServer(
  server: ServerRow,
  box: SecretBox,
  outbound: OutboundPolicy,
): Promise<ServerCheck> {
  const probeFirstListed = async (): Promise<
    [Awaited<ReturnType<typeof listModels>>, ServerCheck["probe"]]
  > => {
    const listed = await listModels(server, box, outbound);
    const first = listed.models?.[0]?.name;
    if (first === undefined) return [listed, NO_PROBE];
    return [listed, await probe({ ...server, models: [first] }, box, outbound)];
  };
  const [listed, probed] = server.models.length
    ? await Promise.all([listModels(server, box, outbound), probe(server, box, outbound)])
    : await probeFirstListed();
  const result: ServerCheck = {
    ok: probed.status === "answered" || probed.status === "unknown",
    models: listed.models,
    probe: probed,
  };
  if (listed.error) result.modelsError = listed.error;
  return result;
}
