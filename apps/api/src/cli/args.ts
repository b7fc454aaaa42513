/**
 * The workbench command's flag values: rate limits, amounts and whole numbers, each refused with a message that
 * says what would be right. Flags are read by the decision server's parseFlags (node:util parseArgs), which
 * also defines the one UsageError both commands exit 2 on.
 */

import { UsageError } from "@decision-workbench/decision-server";

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
