/** A small RFC 4180 reader for the export tests, and the export's cell convention read back. */

/** Cells of every record of a CSV text (quoted cells may hold commas, quotes and line breaks). */
function csvRecords(text: string): string[][] {
  const records: string[][] = [];
  let row: string[] = [];
  let cell = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else cell += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ",") {
      row.push(cell);
      cell = "";
    } else if (ch === "\r" && text[i + 1] === "\n") {
      row.push(cell);
      records.push(row);
      row = [];
      cell = "";
      i++;
    } else cell += ch;
  }
  if (cell !== "" || row.length > 0) {
    row.push(cell);
    records.push(row);
  }
  return records;
}

const NUMERIC = new Set([
  "confidence",
  "unknown",
  "ms",
  "inputTokens",
  "outputTokens",
  "reasoningTokens",
  "cost",
]);
const JSONISH = new Set(["gold", "answer", "probabilities", "reasoning"]);

/** The export's rows read back from its CSV: empty is null, numbers parsed, lists and objects as JSON. */
export function parseCsv(text: string): Record<string, unknown>[] {
  const [header, ...rows] = csvRecords(text);
  return rows.map((cells) => {
    const out: Record<string, unknown> = {};
    header.forEach((name, j) => {
      const c = cells[j];
      if (c === "") out[name] = null;
      else if (NUMERIC.has(name)) out[name] = Number(c);
      else if (JSONISH.has(name) && (c.startsWith("[") || c.startsWith("{"))) out[name] = JSON.parse(c);
      else out[name] = c;
    });
    return out;
  });
}
