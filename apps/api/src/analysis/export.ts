import type { ExportRow } from "../shapes/reports.js";
import type { AnalysisRow, PredictionRow } from "../storage/types.js";

/** The columns of the CSV export, in order. */
export const EXPORT_COLUMNS: readonly (keyof ExportRow)[] = [
  "runId",
  "exampleId",
  "split",
  "item",
  "gold",
  "status",
  "answer",
  "confidence",
  "unknown",
  "probabilities",
  "reason",
  "servedBy",
  "model",
  "endpoint",
  "ms",
  "inputTokens",
  "outputTokens",
  "reasoningTokens",
  "cost",
  "reasoning",
];

const num = (v: unknown): number | null => (typeof v === "number" && Number.isFinite(v) ? v : null);

function reasoningOf(rec: AnalysisRow["record"] | undefined): ExportRow["reasoning"] {
  const r = rec?.reasoning as unknown;
  if (!r || typeof r !== "object") return null;
  if (typeof (r as { text?: unknown }).text === "string") return (r as { text: string }).text;
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(r as Record<string, unknown>)) {
    if (v && typeof v === "object" && typeof (v as { text?: unknown }).text === "string") {
      out[k] = (v as { text: string }).text;
    }
  }
  return out;
}

/**
 * The reasoning of a decision as one text: the text itself, or for a multi-label item one "option: text" paragraph
 * per option (null when the service gave none).
 */
export function reasoningText(rec: AnalysisRow["record"] | undefined): string | null {
  const r = reasoningOf(rec);
  if (r === null || typeof r === "string") return r;
  const parts = Object.entries(r).map(([k, v]) => `${k}: ${v}`);
  return parts.length > 0 ? parts.join("\n\n") : null;
}

/** A stored prediction as an export row (whitelisted fields only). */
export function exportRow(r: PredictionRow): ExportRow {
  const rec = r.record;
  return {
    runId: r.runId,
    exampleId: r.exampleId,
    split: r.split,
    item: r.item,
    gold: r.gold ?? null,
    status: r.status,
    answer: r.answer ?? null,
    confidence: num(r.confidence),
    unknown: num(r.unknown),
    probabilities: r.probabilities ?? null,
    reason: r.reason ?? null,
    servedBy: r.servedBy ?? null,
    model: typeof rec?.model === "string" ? rec.model : null,
    endpoint: typeof rec?.endpoint === "string" ? rec.endpoint : null,
    ms: num(rec?.ms),
    inputTokens: num(rec?.usage?.input_tokens),
    outputTokens: num(rec?.usage?.output_tokens),
    reasoningTokens: num(rec?.usage?.reasoning_tokens),
    cost: num(rec?.cost),
    reasoning: reasoningOf(rec),
  };
}

/**
 * One CSV cell (RFC 4180): null is empty; strings as they are; numbers in JavaScript's shortest round-trip form;
 * lists (multi-label gold and answers) and objects (probabilities, per-option reasoning) as JSON. Quoted when it
 * holds a comma, a quote or a line break.
 */
export function csvCell(v: unknown): string {
  if (v === null || v === undefined) return "";
  const s =
    typeof v === "string"
      ? v
      : typeof v === "number" || typeof v === "boolean"
        ? String(v)
        : JSON.stringify(v);
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** The CSV header line (with CRLF). */
export function csvHeader(): string {
  return `${EXPORT_COLUMNS.join(",")}\r\n`;
}

/** One export row as a CSV line (with CRLF). */
export function csvLine(row: ExportRow): string {
  return `${EXPORT_COLUMNS.map((c) => csvCell(row[c])).join(",")}\r\n`;
}
