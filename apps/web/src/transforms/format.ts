/** Number and label formatting shared by charts, tables and cards. */

import type { MaybeCI, Rate } from "@decision-workbench/api/shapes";
import { wilsonInterval } from "@decision-workbench/calibration";

/** A share as a percentage: 0.834 -> "83.4%"; null or NaN -> "—". */
export function pct(x: number | null | undefined, digits = 1): string {
  if (x === null || x === undefined || !Number.isFinite(x)) return "—";
  return `${(x * 100).toFixed(digits)}%`;
}

/**
 * A count with its noun in the right number: (1, "answer") -> "1 answer", (1530, "answer") -> "1,530 answers",
 * (2, "entry", "entries") -> "2 entries"; the plural is the noun plus "s" unless given.
 */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${count(n)} ${Math.round(n) === 1 ? one : many}`;
}

/** A plain number with fixed decimals (two significant digits when it would round to zero); null or NaN -> "—". */
export function num(x: number | null | undefined, digits = 3): string {
  if (x === null || x === undefined || !Number.isFinite(x)) return "—";
  if (x !== 0 && Math.abs(x) < 0.5 * 10 ** -digits) return x.toPrecision(2);
  return x.toFixed(digits);
}

/** An integer with thousands separators: 100000 -> "100,000". */
export function count(x: number | null | undefined): string {
  if (x === null || x === undefined || !Number.isFinite(x)) return "—";
  return Math.round(x).toLocaleString("en-US");
}

/** How a metric is shown: as a percentage or as a plain number. */
export type Unit = "percent" | "number";

/** One value in its unit. */
export function formatValue(x: number | null | undefined, unit: Unit): string {
  return unit === "percent" ? pct(x) : num(x);
}

/** The interval part of a CI: "80.1–86.2%" or "0.081–0.094"; "" when it was not resampled. */
export function formatInterval(ci: MaybeCI, unit: Unit): string {
  const [, lo, hi] = ci;
  if (lo === null || hi === null || !Number.isFinite(lo) || !Number.isFinite(hi)) return "";
  if (unit === "percent") return `${(lo * 100).toFixed(1)}–${(hi * 100).toFixed(1)}%`;
  return `${num(lo)}–${num(hi)}`;
}

/** A point with its interval: "83.4% (80.1–86.2%)", or just the point when it has no interval. */
export function formatCI(ci: MaybeCI | undefined | null, unit: Unit): string {
  if (!ci) return "—";
  const interval = formatInterval(ci, unit);
  return interval ? `${formatValue(ci[0], unit)} (${interval})` : formatValue(ci[0], unit);
}

/**
 * x of n with its 95 % Wilson score interval [Wilson 1927], as the API gives rates; for shares the web derives from
 * counts it already has (e.g. the answered-alone error at a picked threshold).
 */
export function wilsonRate(x: number, n: number): Rate {
  if (n <= 0) return { x: 0, n: 0, value: null, low: null, high: null };
  const [low, high] = wilsonInterval(x, n);
  return { x, n, value: x / n, low, high };
}

/** A rate's count: "41/43" (x of n). */
export function rateCount(r: Rate): string {
  return `${count(r.x)}/${count(r.n)}`;
}

/** A rate's Wilson interval: "84.5–98.7%"; "" when n is 0. */
export function rateInterval(r: Rate): string {
  if (r.low === null || r.high === null) return "";
  return `${(r.low * 100).toFixed(1)}–${(r.high * 100).toFixed(1)}%`;
}

/** A rate with its count and interval: "95.3% (41/43, 84.5–98.7%)"; "— (0/0)" when there is nothing to share. */
export function formatRate(r: Rate | null | undefined): string {
  if (!r) return "—";
  const interval = rateInterval(r);
  return `${pct(r.value)} (${rateCount(r)}${interval ? `, ${interval}` : ""})`;
}

/** A signed difference: +2.3 pp for percentages, +0.012 for numbers. */
export function formatDelta(x: number, unit: Unit): string {
  const sign = x > 0 ? "+" : x < 0 ? "−" : "±";
  const a = Math.abs(x);
  return unit === "percent" ? `${sign}${(a * 100).toFixed(1)} pp` : `${sign}${a.toFixed(3)}`;
}

/** US dollars: "$0.0123", or "$0" for nothing. */
export function usd(x: number | null | undefined): string {
  if (x === null || x === undefined || !Number.isFinite(x)) return "—";
  if (x === 0) return "$0";
  return x >= 1 ? `$${x.toFixed(2)}` : `$${x.toPrecision(3)}`;
}

/** Milliseconds for people: 850 -> "850 ms", 12300 -> "12.3 s", 192000 -> "3 min 12 s". */
export function duration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return "—";
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const m = Math.floor(ms / 60_000);
  return `${m} min ${Math.round((ms - m * 60_000) / 1000)} s`;
}

/** A label or a list of labels: ["a","b"] -> "a, b"; [] -> "(none)"; null -> "—". */
export function label(x: string | string[] | null | undefined): string {
  if (x === null || x === undefined) return "—";
  if (Array.isArray(x)) return x.length ? x.join(", ") : "(none)";
  return x;
}

/** A date-time in the reader's locale, short. */
export function when(iso: string | null | undefined): string {
  if (!iso) return "—";
  const d = new Date(iso);
  return Number.isNaN(d.getTime())
    ? iso
    : d.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
}

/**
 * A run's headline accuracy as a rate: "84.2% (202/240, 79.0–88.4%)" when the API gave the row count, else the bare
 * share (headlines stored before the count was kept).
 */
export function headlineAccuracy(h: { accuracy: number | null; n?: number }): string {
  if (h.accuracy === null || h.n === undefined) return pct(h.accuracy);
  return formatRate(wilsonRate(Math.round(h.accuracy * h.n), h.n));
}

/**
 * A plain number to `digits` significant digits (3 unless told): 0.9494938803943613 -> "0.949", 0.31 -> "0.310",
 * 12.345 -> "12.3"; from 10^digits up, a whole number with separators (12,346); null or NaN -> "—".
 */
export function sig(x: number | null | undefined, digits = 3): string {
  if (x === null || x === undefined || !Number.isFinite(x)) return "—";
  if (Math.abs(x) >= 10 ** digits) return count(x);
  return x.toLocaleString("en-US", {
    minimumSignificantDigits: digits,
    maximumSignificantDigits: digits,
    useGrouping: false,
  });
}
