/**
 * Command-line flags read with node:util's parseArgs, and the one error a bad command line raises. Shared by
 * `decision-server` and the workbench's `workbench` command; both exit 2 on a UsageError.
 */

import { parseArgs } from "node:util";

/** A bad command line; the message says what is wrong and what would be right. */
export class UsageError extends Error {
  override name = "UsageError";
}

/** Flag specs: name -> string or boolean, multiple when repeatable, with an optional one-letter alias. */
export type FlagSpec = Record<string, { type: "string" | "boolean"; multiple?: boolean; short?: string }>;

/**
 * The flags (and, when allowed, the positional arguments) of `command`'s `argv`, read against `spec`. An
 * unknown flag, a missing value, a value given to a switch or an unexpected argument throws a UsageError
 * that names the problem and lists `command`'s flags.
 */
export function parseFlags<T extends object>(
  command: string,
  argv: readonly string[],
  spec: FlagSpec,
  positionals = false,
): { flags: T; positionals: string[] } {
  try {
    const parsed = parseArgs({ args: [...argv], options: spec, strict: true, allowPositionals: positionals });
    return { flags: parsed.values as T, positionals: parsed.positionals };
  } catch (err) {
    const flags = Object.entries(spec)
      .map(([name, { type }]) => (type === "string" ? `--${name} VALUE` : `--${name}`))
      .join(", ");
    throw new UsageError(`${problem(err as Error & { code?: string })} (the flags of ${command}: ${flags})`);
  }
}

/** What node's parse error means, in the words of the rest of the command's messages. */
function problem(err: Error & { code?: string }): string {
  // node names the argument in quotes: 'x', '--flag', '--flag <value>' or '-f, --flag <value>'
  const named = /'(?:-\w, )?([^' ]+)/.exec(err.message)?.[1];
  if (named === undefined) return err.message;
  switch (err.code) {
    case "ERR_PARSE_ARGS_UNKNOWN_OPTION":
      return `unknown flag '${named}'`;
    case "ERR_PARSE_ARGS_INVALID_OPTION_VALUE":
      return err.message.includes("argument missing")
        ? `${named} needs a value: ${named} VALUE or ${named}=VALUE`
        : `${named} is a switch and takes no value: ${named} alone`;
    case "ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL":
      return `unexpected argument '${named}': this command takes flags only`;
    default:
      return err.message;
  }
}
