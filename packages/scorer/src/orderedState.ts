import { ValueError } from "./errors.js";

/**
 * A mapping state that keeps its key order on the wire. JavaScript objects put integer-like keys ("2", "10")
 * before the others, in ascending order, whatever order they were written in; a service reads a mapping
 * state in its key order, so the scorer sends an OrderedState's JSON text as it is (white space outside
 * strings removed) instead of serialising an object.
 *
 * Made from the state's JSON source text (a JSONL line, say: nested objects keep their order too) or from a
 * list of [key, value] pairs (a CSV row in column order; a value that is itself an OrderedState keeps its
 * order, other values are serialised with JSON.stringify).
 */
export class OrderedState {
  /** The JSON text sent as `state`: compact, keys in their source order. */
  readonly json: string;

  constructor(source: string | readonly (readonly [string, unknown])[]) {
    if (typeof source === "string") this.json = compactJson(source);
    else if (Array.isArray(source)) this.json = entriesJson(source);
    else {
      throw new ValueError(
        "an OrderedState is made from the state's JSON text or from a list of [key, value] pairs",
      );
    }
  }

  /** The state as a plain value (integer-like keys then come first, as in any JavaScript object). */
  value(): unknown {
    return JSON.parse(this.json);
  }

  /** Where an OrderedState is serialised by JSON.stringify: its plain value (the scorer writes `json`). */
  toJSON(): unknown {
    return this.value();
  }
}

/** An OrderedState from the state's JSON text or its [key, value] pairs. */
export function orderedState(source: string | readonly (readonly [string, unknown])[]): OrderedState {
  return new OrderedState(source);
}

function entriesJson(entries: readonly (readonly [string, unknown])[]): string {
  let out = "{";
  const seen = new Set<string>();
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i];
    if (!Array.isArray(entry) || entry.length !== 2 || typeof entry[0] !== "string") {
      throw new ValueError(
        `OrderedState pair ${i} must be [key, value] with a string key, got ${describe(entry)}`,
      );
    }
    const [key, value] = entry as [string, unknown];
    if (seen.has(key)) throw new ValueError(`OrderedState key ${JSON.stringify(key)} appears twice`);
    seen.add(key);
    const text = value instanceof OrderedState ? value.json : JSON.stringify(value);
    if (text === undefined) {
      throw new ValueError(
        `OrderedState key ${JSON.stringify(key)} has a value JSON cannot hold (${typeof value})`,
      );
    }
    out += `${i === 0 ? "" : ","}${JSON.stringify(key)}:${text}`;
  }
  return `${out}}`;
}

/** Checks JSON text and removes the white space outside its strings; everything else stays as written. */
function compactJson(text: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new ValueError(
      `an OrderedState's source must be JSON text (such as '{"b": 1, "2": 0}'): ${(error as Error).message}`,
    );
  }
  if (parsed === null) throw new ValueError("an OrderedState's source is JSON null; a state is required");
  let out = "";
  let start = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // a backslash: the next character is escaped
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) {
      out += text.slice(start, i);
      start = i + 1;
    }
  }
  return out + text.slice(start);
}

function describe(value: unknown): string {
  try {
    return JSON.stringify(value) ?? typeof value;
  } catch {
    return typeof value;
  }
}
