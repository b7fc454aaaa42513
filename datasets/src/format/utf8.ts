/** An invalid UTF-8 sequence: its 1-based line, 1-based character column and the offending byte. */
export interface BadByte {
  line: number;
  column: number;
  byte: number;
}

/**
 * Length of the valid UTF-8 sequence that starts at `bytes[i]` (1 to 4), or 0 when none does there (a stray
 * continuation byte, an overlong form, a surrogate, a code point over U+10FFFF or a cut-off sequence).
 */
function sequenceLength(bytes: Uint8Array, i: number): number {
  const b = bytes[i];
  if (b < 0x80) return 1;
  let len = 0;
  let min = 0;
  if (b >= 0xc2 && b <= 0xdf) {
    len = 2;
    min = 0x80;
  } else if (b >= 0xe0 && b <= 0xef) {
    len = 3;
    min = 0x800;
  } else if (b >= 0xf0 && b <= 0xf4) {
    len = 4;
    min = 0x10000;
  } else return 0;
  if (i + len > bytes.length) return 0;
  let cp = len === 2 ? b & 0x1f : len === 3 ? b & 0x0f : b & 0x07;
  for (let k = 1; k < len; k++) {
    const c = bytes[i + k];
    if ((c & 0xc0) !== 0x80) return 0;
    cp = (cp << 6) | (c & 0x3f);
  }
  return cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff) ? 0 : len;
}

/**
 * Find invalid UTF-8 in bytes: the first bad sequence of each line (at most `maxLines` lines reported).
 * Columns count characters as a decoder would show them (a bad byte counts as one replacement character).
 */
export function findInvalidUtf8(
  bytes: Uint8Array,
  maxLines = Number.POSITIVE_INFINITY,
): { bad: BadByte[]; lines: number } {
  const bad: BadByte[] = [];
  let line = 1;
  let col = 1;
  let badLine = 0;
  let badLines = 0;
  let i = 0;
  const n = bytes.length;
  while (i < n) {
    const b = bytes[i];
    if (b < 0x80) {
      if (b === 0x0a) {
        line++;
        col = 1;
      } else col++;
      i++;
      continue;
    }
    const len = sequenceLength(bytes, i);
    if (len === 0) {
      if (badLine !== line) {
        badLine = line;
        badLines++;
        if (bad.length < maxLines) bad.push({ line, column: col, byte: b });
      }
      col++;
      i++;
      continue;
    }
    col += len === 4 ? 2 : 1;
    i += len;
  }
  return { bad: bad, lines: badLines };
}

// Lossless decoding: each byte that is not UTF-8 becomes one lone low surrogate U+DC80..U+DCFF (Python's
// "surrogateescape"), which no valid UTF-8 decodes to; encodeUtf8Escaped gives the bytes back.
const ESCAPED = /(?<![\uD800-\uDBFF])[\uDC80-\uDCFF]/;

/**
 * Text from bytes that may not be UTF-8, losing nothing: invalid bytes become U+DC80 + byte. Lets a JSON
 * document with a bad byte inside one of its strings be parsed, and the byte found again in that string.
 */
export function decodeUtf8Escaped(bytes: Uint8Array): string {
  const decoder = new TextDecoder("utf-8", { ignoreBOM: true });
  const parts: string[] = [];
  let start = 0;
  let i = 0;
  while (i < bytes.length) {
    const len = bytes[i] < 0x80 ? 1 : sequenceLength(bytes, i);
    if (len > 0) {
      i += len;
      continue;
    }
    parts.push(decoder.decode(bytes.subarray(start, i)), String.fromCharCode(0xdc00 + bytes[i]));
    start = ++i;
  }
  parts.push(decoder.decode(bytes.subarray(start)));
  return parts.join("");
}

/** True when text holds a byte escaped by decodeUtf8Escaped. */
export function hasEscapedBytes(text: string): boolean {
  return ESCAPED.test(text);
}

/** The bytes of text from decodeUtf8Escaped: UTF-8, with each escaped byte restored as it was. */
export function encodeUtf8Escaped(text: string): Uint8Array {
  const parts: Buffer[] = [];
  let last = 0;
  for (const m of text.matchAll(new RegExp(ESCAPED, "g"))) {
    const at = m.index ?? 0;
    parts.push(Buffer.from(text.slice(last, at), "utf8"), Buffer.of(text.charCodeAt(at) - 0xdc00));
    last = at + 1;
  }
  parts.push(Buffer.from(text.slice(last), "utf8"));
  return Buffer.concat(parts);
}

/** A hint for a byte that is not UTF-8: what it would be in Windows-1252 (the usual cause). */
export function latin1Hint(byte: number): string {
  const ch = new TextDecoder("windows-1252").decode(Uint8Array.of(byte));
  const hex = `0x${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  return /\p{L}|\p{S}|\p{P}/u.test(ch)
    ? `byte ${hex} is not UTF-8 (in Windows-1252/Latin-1 it would be "${ch}"); save the file as UTF-8`
    : `byte ${hex} is not UTF-8; save the file as UTF-8`;
}
