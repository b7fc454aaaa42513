/** A JSON syntax problem at a 0-based character offset, with a message that says what would be right. */
export class JsonSyntaxError extends Error {
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(message);
    this.name = "JsonSyntaxError";
  }
}

/** A parsed JSON value with the 0-based offsets of every key and value, by path ("labels.x", "a[2]"). */
export interface Located {
  value: unknown;
  keyAt: Map<string, number>;
  valueAt: Map<string, number>;
}

function show(c: string | undefined): string {
  if (c === undefined) return "the end of the line";
  if (c === " " || c === "\t") return "a space";
  return JSON.stringify(c);
}

/**
 * Parse one JSON text (a JSONL line), recording where each key and value starts. Used only on lines that
 * failed JSON.parse or a check, to say where the problem is; the fast path is JSON.parse.
 */
export function parseLocated(text: string): Located {
  let i = 0;
  const keyAt = new Map<string, number>();
  const valueAt = new Map<string, number>();
  const ws = () => {
    while (i < text.length && (text[i] === " " || text[i] === "\t" || text[i] === "\r" || text[i] === "\n"))
      i++;
  };
  const fail = (msg: string, at = i): never => {
    throw new JsonSyntaxError(msg, at);
  };
  const str = (): string => {
    const start = i;
    i++;
    let out = "";
    while (true) {
      const c = text[i];
      if (c === undefined) fail("a string is not closed: add the closing double quote", start);
      if (c === '"') {
        i++;
        return out;
      }
      if (c < " ")
        fail("a raw control character (tab or line break) inside a string; write it as \\t or \\n");
      if (c === "\\") {
        const e = text[i + 1];
        const simple: Record<string, string> = {
          '"': '"',
          "\\": "\\",
          "/": "/",
          b: "\b",
          f: "\f",
          n: "\n",
          r: "\r",
          t: "\t",
        };
        if (e !== undefined && e in simple) {
          out += simple[e];
          i += 2;
        } else if (e === "u" && /^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) {
          out += String.fromCharCode(parseInt(text.slice(i + 2, i + 6), 16));
          i += 6;
        } else fail(`invalid escape "\\${e ?? ""}" in a string; a backslash itself is written \\\\`);
        continue;
      }
      out += c;
      i++;
    }
  };
  const value = (path: string, depth: number): unknown => {
    ws();
    valueAt.set(path, i);
    const c = text[i];
    if (depth > 200) fail("nesting is too deep");
    if (c === "{") {
      i++;
      const obj: Record<string, unknown> = {};
      ws();
      if (text[i] === "}") {
        i++;
        return obj;
      }
      while (true) {
        ws();
        if (text[i] === "}") fail('a trailing comma before "}": remove the last comma');
        if (text[i] === "'") fail("keys need double quotes, not single quotes");
        if (text[i] !== '"') fail(`expected a key in double quotes, found ${show(text[i])}`);
        const at = i;
        const key = str();
        const p = path ? `${path}.${key}` : key;
        keyAt.set(p, at);
        ws();
        if (text[i] !== ":") fail(`expected ":" after the key "${key}", found ${show(text[i])}`);
        i++;
        obj[key] = value(p, depth + 1);
        ws();
        if (text[i] === ",") {
          i++;
          continue;
        }
        if (text[i] === "}") {
          i++;
          return obj;
        }
        fail(`expected "," or "}" after the value of "${key}", found ${show(text[i])}`);
      }
    }
    if (c === "[") {
      i++;
      const arr: unknown[] = [];
      ws();
      if (text[i] === "]") {
        i++;
        return arr;
      }
      while (true) {
        ws();
        if (text[i] === "]") fail('a trailing comma before "]": remove the last comma');
        arr.push(value(`${path}[${arr.length}]`, depth + 1));
        ws();
        if (text[i] === ",") {
          i++;
          continue;
        }
        if (text[i] === "]") {
          i++;
          return arr;
        }
        fail(`expected "," or "]" in a list, found ${show(text[i])}`);
      }
    }
    if (c === '"') return str();
    if (c === "'") fail("strings need double quotes, not single quotes");
    const num = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/.exec(text.slice(i, i + 400));
    if (num && num[0] !== "-") {
      const after = text[i + num[0].length];
      if (after !== undefined && /[0-9.xXeE]/.test(after))
        fail(`a malformed number "${text.slice(i).split(/[,}\]\s]/)[0]}"`);
      i += num[0].length;
      return Number(num[0]);
    }
    for (const [word, v] of [
      ["true", true],
      ["false", false],
      ["null", null],
    ] as const) {
      if (text.startsWith(word, i)) {
        i += word.length;
        return v;
      }
    }
    if (c === undefined) fail("the line ends where a value should be: is something cut off?");
    const word = /^[A-Za-z_][\w-]*/.exec(text.slice(i));
    if (word) {
      if (word[0] === "NaN" || word[0] === "Infinity")
        fail(`${word[0]} is not JSON; use null or a finite number`);
      fail(`found the bare word ${word[0]}; strings need double quotes ("${word[0]}")`);
    }
    return fail(
      `expected a value (a "string", number, {object}, [list], true, false or null), found ${show(c)}`,
    );
  };
  const v = value("", 0);
  ws();
  if (i < text.length) {
    fail(
      text[i] === "{"
        ? "a second JSON object on the same line: put each example on its own line"
        : `unexpected ${show(text[i])} after the end of the JSON value`,
    );
  }
  return { value: v, keyAt, valueAt };
}
