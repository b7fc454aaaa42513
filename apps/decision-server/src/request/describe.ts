/** Small helpers that name JSON values and lists in error messages the way the open-weight servers do. */

/** The JSON type name of a value: object, array, string, number, boolean or null. */
export function jsonType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value;
}

/** A Python-style list of quoted names: ['a', 'b']. */
export function pyList(names: readonly string[]): string {
  return "[" + names.map((n) => `'${n}'`).join(", ") + "]";
}

/** True for a plain JSON object (not an array, not null). */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
