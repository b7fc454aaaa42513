/**
 * "Confident and wrong": the wrong answers whose confidence is at or above a threshold the reader sets (0.8 unless
 * the link says otherwise). The API's `confident-wrong` filter gives every wrong answer, highest confidence first;
 * these functions keep the ones above the threshold and count them without reading every page.
 */

import type { ItemRow } from "@decision-workbench/api/shapes";

/** The threshold a link without `?confidence=` uses. */
const CONFIDENT_DEFAULT = 0.8;
/** The URL parameter that holds the threshold, as a share: `?confidence=0.9`. */
const PARAM = "confidence";

/** True when the row's confidence is at or above the threshold (a row without a confidence never is). */
function isConfident(row: Pick<ItemRow, "confidence">, threshold: number): boolean {
  return row.confidence !== null && Number.isFinite(row.confidence) && row.confidence >= threshold - 1e-12;
}

/** The rows of a page of wrong answers (highest confidence first) that are at or above the threshold. */
export function confidentRows<R extends Pick<ItemRow, "confidence">>(rows: R[], threshold: number): R[] {
  return rows.filter((r) => isConfident(r, threshold));
}

/** One page of wrong answers, highest confidence first, from `offset`, at most `limit` rows. */
export type WrongPage = (offset: number, limit: number) => Promise<{ total: number; rows: ItemRow[] }>;

/**
 * How many wrong answers are at or above the threshold. The answers come sorted by confidence, so the confident
 * ones are a prefix: one page of `page` rows settles most cases, and when all of it is confident a binary search
 * with one-row pages finds where the prefix ends (about log2(total) requests more).
 */
export async function countConfident(fetchPage: WrongPage, threshold: number, page = 500): Promise<number> {
  const first = await fetchPage(0, page);
  const inFirst = confidentRows(first.rows, threshold).length;
  if (inFirst < first.rows.length || first.rows.length >= first.total) return inFirst;
  // rows[lo - 1] is confident; the first row that is not lies in [lo, hi].
  let lo = first.rows.length;
  let hi = first.total;
  while (lo < hi) {
    const mid = Math.floor((lo + hi) / 2);
    const row = (await fetchPage(mid, 1)).rows[0];
    if (row && isConfident(row, threshold)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The threshold named in a link, a share in [0, 1]; anything else (missing, not a number, out of range) is 0.8. */
export function readConfidentThreshold(sp: URLSearchParams): number {
  const raw = sp.get(PARAM);
  if (raw === null || raw.trim() === "") return CONFIDENT_DEFAULT;
  const v = Number(raw);
  return Number.isFinite(v) && v >= 0 && v <= 1 ? v : CONFIDENT_DEFAULT;
}

/** The parameters with the threshold set, rounded to 0.001 (the default left out, so links stay short). */
export function writeConfidentThreshold(sp: URLSearchParams, threshold: number): URLSearchParams {
  const next = new URLSearchParams(sp);
  const t = Math.round(Math.min(1, Math.max(0, threshold)) * 1000) / 1000;
  if (t === CONFIDENT_DEFAULT) next.delete(PARAM);
  else next.set(PARAM, String(t));
  return next;
}
