/**
 * The workbench command's flag values: rate limits, amounts, whole numbers and split lists, each refused with a
 * message that says what would be right. Flags are read by the decision server's parseFlags (node:util parseArgs), which
 * also defines the one UsageError both commands exit 2 on.
 */

import { UsageError } from "@decision-workbench/decision-server";
import { SPLITS } from "../shapes/limits.js";
import type { Split } from "../storage/types.js";

export { parseFlags, UsageError } from "@decision-workbench/decision-server";

/**
 * A rate limit flag (`--requests-per-minute`, `--input-tokens-per-minute`): a number above 0, or `none` (null)
 * to clear a stored limit; undefined when not given.
 */
export function perMinuteFlag(value: string | undefined, name: string): number | null | undefined {
  if (value === undefined) return undefined;
  if (value.trim().toLowerCase() === "none") return null;
  const n = Number(value);
  if (!/^\s*\d+(\.\d+)?\s*$/.test(value) || !(n > 0) || n > 1e9) {
    throw new UsageError(
      `--${name} must be a number above 0 (a minute's worth, such as 1200), or none to clear the server's limit; got ${JSON.stringify(value)}`,
    );
  }
  return n;
}

/**
 * An amount flag (`--max-cost`, `--max-input-tokens`, `--input-price`, `--output-price`): a number above 0, or
 * `none` (null); undefined when not given. `example` is shown in the error.
 */
export function amountFlag(
  value: string | undefined,
  name: string,
  example: string,
): number | null | undefined {
  if (value === undefined) return undefined;
  if (value.trim().toLowerCase() === "none") return null;
  const n = Number(value);
  if (!/^\s*\d*\.?\d+([eE][+-]?\d+)?\s*$/.test(value) || !(n > 0) || n > 1e12) {
    throw new UsageError(
      `--${name} must be a number above 0 (such as ${example}), or none; got ${JSON.stringify(value)}`,
    );
  }
  return n;
}

/** A whole number flag within bounds. */
export function intFlag(
  value: string | undefined,
  name: string,
  min: number,
  max: number,
): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) {
    throw new UsageError(
      `--${name} must be a whole number from ${min} to ${max}; got ${JSON.stringify(value)}`,
    );
  }
  return Number(value);
}

/** What `--split` takes, in the words of every command's help and error. */
const SPLIT_LIST_HELP =
  "train, calibration or test, comma-separated (--split calibration,test), or all (every split)";

/**
 * A split list flag (`--split calibration,test`, repeatable): the splits in the order given, without repeats, or
 * "all" (every split) when `all` is among them; undefined when not given. An unknown split is refused with the
 * valid ones named.
 */
export function splitListFlag(
  values: readonly string[] | string | undefined,
  name: string,
): Split[] | "all" | undefined {
  if (values === undefined) return undefined;
  const names = (typeof values === "string" ? [values] : values)
    .flatMap((v) => v.split(","))
    .map((s) => s.trim())
    .filter((s) => s !== "");
  const splits: Split[] = [];
  for (const s of names) {
    if (s === "all") return "all";
    if (!(SPLITS as readonly string[]).includes(s)) {
      throw new UsageError(
        `--${name} ${JSON.stringify(s)} is not a split; --${name} takes ${SPLIT_LIST_HELP}`,
      );
    }
    if (!splits.includes(s as Split)) splits.push(s as Split);
  }
  if (splits.length === 0) throw new UsageError(`--${name} is empty; it takes ${SPLIT_LIST_HELP}`);
  return splits;
}

/** The address `workbench serve --reference-port 8009` gives the embedded reference server: the examples use it. */
export const REFERENCE_URL = "http://127.0.0.1:8009";
