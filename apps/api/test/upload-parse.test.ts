// The parser pieces uploads rely on (datasets package): the depth scan, the lossless UTF-8 escaping, and
// parseJsonl's "too-deep" error.
import { randomBytes } from "node:crypto";
import {
  DEFAULT_MAX_DEPTH,
  decodeUtf8Escaped,
  encodeUtf8Escaped,
  hasEscapedBytes,
  parseJsonl,
  parseTask,
} from "@decision-workbench/datasets";
import { describe, expect, it } from "vitest";
import { syntheticTask } from "./fixtures.js";

const parsedTask = parseTask(syntheticTask("p"));
if (!parsedTask.ok) throw new Error(parsedTask.message);
const task = parsedTask.task;

describe("parseJsonl's depth limit", () => {
  const line = (state: string) => `{"id":"a","state":${state},"labels":{"team":"billing"}}`;

  it("counts objects and lists, not brackets inside strings", () => {
    const brackets = `"${"[{".repeat(500)}\\"]}"`;
    expect(parseJsonl(line(brackets), task).ok).toBe(true);
    expect(parseJsonl(line(`${"[".repeat(63)}1${"]".repeat(63)}`), task).ok).toBe(true);
    const r = parseJsonl(`\n${line(`${"[".repeat(64)}1${"]".repeat(64)}`)}`, task);
    if (r.ok) throw new Error("expected too-deep");
    expect(r.errors).toEqual([
      expect.objectContaining({ code: "too-deep", line: 2, column: '{"id":"a","state":'.length + 64 }),
    ]);
  });

  it("refuses 200,000 levels of objects in meta without recursing", () => {
    const meta = `${'{"a":'.repeat(200_000)}1${"}".repeat(200_000)}`;
    const r = parseJsonl(`{"id":"a","state":"x","labels":{},"meta":${meta}}`, task, { maxDepth: 10 });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors[0]).toMatchObject({ code: "too-deep", line: 1 });
    expect(DEFAULT_MAX_DEPTH).toBe(64);
  });
});

describe("lossless decoding of bytes that may not be UTF-8", () => {
  it("gives back every byte string exactly", () => {
    for (let n = 0; n < 200; n++) {
      const bytes = randomBytes(1 + (n % 50));
      const text = decodeUtf8Escaped(bytes);
      expect(Buffer.from(encodeUtf8Escaped(text)).equals(bytes)).toBe(true);
    }
  });

  it("decodes valid UTF-8 as TextDecoder does, with nothing escaped", () => {
    const text = "caf\u00e9 \u2615 \u{1f600} \ufeff end";
    const bytes = Buffer.from(text);
    expect(decodeUtf8Escaped(bytes)).toBe(text);
    expect(hasEscapedBytes(decodeUtf8Escaped(bytes))).toBe(false);
    expect(hasEscapedBytes("\ud83d\ude00")).toBe(false);
  });

  it("marks each bad byte (a stray continuation, an overlong form, a cut-off sequence)", () => {
    const bytes = Buffer.from([0x61, 0x80, 0xc0, 0xaf, 0xe2, 0x82]);
    const text = decodeUtf8Escaped(bytes);
    expect([...text].map((c) => c.charCodeAt(0))).toEqual([0x61, 0xdc80, 0xdcc0, 0xdcaf, 0xdce2, 0xdc82]);
    expect(hasEscapedBytes(text)).toBe(true);
  });
});
