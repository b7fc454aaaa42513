/**
 * Parses JSON that may hold the bare tokens NaN, Infinity and -Infinity (Python servers emit them), so a bad
 * probability escalates as invalid output instead of as unreadable JSON. Plain JSON takes the fast path.
 */
export function parseLenientJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    if (!/NaN|Infinity/.test(text)) throw error;
    return new LenientParser(text).parseDocument();
  }
}

class LenientParser {
  private at = 0;
  constructor(private readonly text: string) {}

  parseDocument(): unknown {
    const value = this.value();
    this.space();
    if (this.at !== this.text.length) this.fail("unexpected text after the JSON value");
    return value;
  }

  private value(): unknown {
    this.space();
    const c = this.text[this.at];
    if (c === "{") return this.object();
    if (c === "[") return this.array();
    if (c === '"') return this.string();
    for (const [word, value] of WORDS) {
      if (this.text.startsWith(word, this.at)) {
        this.at += word.length;
        return value;
      }
    }
    return this.number();
  }

  private object(): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    this.at++;
    this.space();
    if (this.text[this.at] === "}") {
      this.at++;
      return out;
    }
    for (;;) {
      this.space();
      if (this.text[this.at] !== '"') this.fail("expected a key");
      const key = this.string();
      this.space();
      if (this.text[this.at++] !== ":") this.fail("expected ':'");
      out[key] = this.value();
      this.space();
      const c = this.text[this.at++];
      if (c === "}") return out;
      if (c !== ",") this.fail("expected ',' or '}'");
    }
  }

  private array(): unknown[] {
    const out: unknown[] = [];
    this.at++;
    this.space();
    if (this.text[this.at] === "]") {
      this.at++;
      return out;
    }
    for (;;) {
      out.push(this.value());
      this.space();
      const c = this.text[this.at++];
      if (c === "]") return out;
      if (c !== ",") this.fail("expected ',' or ']'");
    }
  }

  private string(): string {
    const start = this.at;
    this.at++;
    for (;;) {
      const c = this.text[this.at++];
      if (c === undefined) this.fail("unterminated string");
      if (c === "\\") this.at++;
      else if (c === '"') break;
    }
    return JSON.parse(this.text.slice(start, this.at)) as string;
  }

  private number(): number {
    const match = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(this.text.slice(this.at, this.at + 64));
    if (!match) this.fail("unexpected character");
    this.at += match![0].length;
    return Number(match![0]);
  }

  private space(): void {
    while (/\s/.test(this.text[this.at] ?? "")) this.at++;
  }

  private fail(message: string): never {
    throw new SyntaxError(`${message} at position ${this.at}`);
  }
}

const WORDS: [string, unknown][] = [
  ["true", true],
  ["false", false],
  ["null", null],
  ["NaN", Number.NaN],
  ["Infinity", Number.POSITIVE_INFINITY],
  ["-Infinity", Number.NEGATIVE_INFINITY],
];
