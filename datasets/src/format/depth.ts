/** The default deepest nesting of objects and lists on one JSONL line (the example object is level 1). */
export const DEFAULT_MAX_DEPTH = 64;

/**
 * Where a JSON text first nests objects and lists more than `max` levels deep: the 0-based offset of the
 * bracket that opens level max + 1, or -1. A scan of the characters (string contents skipped), so a line
 * nested 200,000 deep is refused before anything parses it or recurses over it.
 */
export function tooDeepAt(text: string, max: number): number {
  if (text.length <= max) return -1;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) return i;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return -1;
}
