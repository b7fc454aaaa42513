const LIMIT = 400;

/**
 * The service's error text for an escalation reason or a ServiceError: error.message (or a string error /
 * message), else a string detail, else detail.message, else FastAPI's detail list, else the raw text; a
 * gateway's wrapped cause (error.metadata.raw, with the provider name) appended; white space collapsed; cut.
 */
export function errorText(body: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return tidy(body);
  }
  if (typeof parsed !== "object" || parsed === null) return tidy(body);
  const doc = parsed as Record<string, unknown>;
  const error = doc.error;
  let text: string | undefined;
  let raw: string | undefined;
  if (typeof error === "object" && error !== null) {
    const e = error as Record<string, unknown>;
    if (typeof e.message === "string") text = e.message;
    const meta = e.metadata as Record<string, unknown> | undefined;
    if (meta && typeof meta === "object" && meta.raw !== undefined) {
      const cause = typeof meta.raw === "string" ? meta.raw : JSON.stringify(meta.raw);
      raw = typeof meta.provider_name === "string" ? `${meta.provider_name}: ${cause}` : cause;
    }
  } else if (typeof error === "string") {
    text = error;
  }
  if (text === undefined && typeof doc.message === "string") text = doc.message;
  if (text === undefined) text = detailText(doc.detail);
  if (text === undefined) text = body;
  return tidy(raw ? `${text} (${raw})` : text);
}

function detailText(detail: unknown): string | undefined {
  if (typeof detail === "string") return detail;
  if (Array.isArray(detail)) {
    const parts = detail.map((d) => {
      if (typeof d !== "object" || d === null) return String(d);
      const { loc, msg } = d as { loc?: unknown; msg?: unknown };
      const where = Array.isArray(loc) ? loc.join(".") : undefined;
      return where ? `${where}: ${String(msg)}` : String(msg);
    });
    return parts.length ? parts.join("; ") : undefined;
  }
  if (typeof detail === "object" && detail !== null) {
    const message = (detail as Record<string, unknown>).message;
    if (typeof message === "string") return message;
  }
  return undefined;
}

function tidy(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > LIMIT ? `${flat.slice(0, LIMIT - 1)}…` : flat;
}
