/** An invalid UTF-8 sequence: its 1-based line, 1-based character column and the offending byte. */
export interface BadByte {
  line: number;
  column: number;
  byte: number;
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
    }
    let ok = len > 0 && i + len <= n;
    let cp = len === 2 ? b & 0x1f : len === 3 ? b & 0x0f : b & 0x07;
    for (let k = 1; ok && k < len; k++) {
      const c = bytes[i + k];
      if ((c & 0xc0) !== 0x80) ok = false;
      else cp = (cp << 6) | (c & 0x3f);
    }
    if (ok && (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))) ok = false;
    if (!ok) {
      if (badLine !== line) {
        badLine = line;
        badLines++;
        if (bad.length < maxLines) bad.push({ line, column: col, byte: b });
      }
      col++;
      i++;
      continue;
    }
    col += cp >= 0x10000 ? 2 : 1;
    i += len;
  }
  return { bad: bad, lines: badLines };
}

/** A hint for a byte that is not UTF-8: what it would be in Windows-1252 (the usual cause). */
export function latin1Hint(byte: number): string {
  const ch = new TextDecoder("windows-1252").decode(Uint8Array.of(byte));
  const hex = `0x${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  return /\p{L}|\p{S}|\p{P}/u.test(ch)
    ? `byte ${hex} is not UTF-8 (in Windows-1252/Latin-1 it would be "${ch}"); save the file as UTF-8`
    : `byte ${hex} is not UTF-8; save the file as UTF-8`;
}
