/**
 * What the API quotes of a remote reply: a short snippet of its error text (control characters stripped,
 * anything that looks like a secret redacted), and of a redirect only the origin it points to.
 */

import { redact } from "@decision-workbench/scorer";

/** At most this many characters of a remote reply are quoted in an error or a check result. */
export const SNIPPET_CHARS = 200;

/** Characters read of a reply's text before redacting and cutting (bounds the work on a huge reply). */
const READ_CHARS = 4096;

/** Control characters (C0, DEL, C1) and format characters (zero-width, bidirectional, the BOM), line separators. */
const CONTROL = /[\p{Cc}\p{Cf}\u2028\u2029]/gu;

/** Shapes of secrets: an auth scheme's credentials, `key=value` pairs of secret names, known key prefixes, JWTs. */
const SECRET_SHAPES: [RegExp, string | ((match: string) => string)][] = [
  [/\b(bearer|basic|token)(\s+)[A-Za-z0-9._~+/=-]{6,}/gi, "$1$2[redacted]"],
  [
    /\b((?:api[_-]?key|apikey|access[_-]?key|secret|client[_-]?secret|token|access[_-]?token|password|passwd|pwd|authorization|cookie|session|credentials?)["']?\s*[:=]\s*["']?)[^\s"',;&}]+/gi,
    "$1[redacted]",
  ],
  [/\b(?:sk|pk|rk|ghp|gho|ghs|github_pat|xox[abpr]|AKIA|ASIA|AIza)[-_A-Za-z0-9]{12,}/g, "[redacted]"],
  [/\beyJ[A-Za-z0-9_-]{6,}\.[A-Za-z0-9_-]{6,}(?:\.[A-Za-z0-9_-]*)?/g, "[redacted]"],
  // a long run of key characters holding both letters and digits (hex or base64 keys)
  [/[A-Za-z0-9+/_-]{32,}={0,2}/g, (m) => (/\d/.test(m) && /[A-Za-z]/.test(m) ? "[redacted]" : m)],
];

/** Removes the given secrets and anything shaped like one. */
function redactSecrets(text: string, secrets: readonly (string | undefined)[] = []): string {
  let out = text;
  for (const secret of secrets) out = redact(out, secret);
  for (const [shape, by] of SECRET_SHAPES) out = out.replace(shape, by as string);
  return out;
}

/**
 * A remote text as the API may quote it: the given secrets and (unless `shapes` is false, for a sentence of
 * the API's own around an already screened snippet) secret-shaped strings redacted, control characters
 * dropped, white space collapsed, at most `limit` characters.
 */
export function snippet(
  text: string,
  secrets: readonly (string | undefined)[] = [],
  limit = SNIPPET_CHARS,
  shapes = true,
): string {
  const read = text.length > READ_CHARS ? text.slice(0, READ_CHARS) : text;
  let clean = read.replace(/\s+/g, " ").replace(CONTROL, "");
  if (shapes) clean = redactSecrets(clean, secrets);
  else for (const secret of secrets) clean = redact(clean, secret);
  clean = clean.trim();
  return clean.length > limit ? `${clean.slice(0, limit - 1)}…` : clean;
}

/** The origin (scheme://host:port) a redirect points to, resolved against the request's URL; never its path or query. */
function redirectOrigin(location: string | string[] | undefined, requestUrl: string): string | undefined {
  const first = Array.isArray(location) ? location[0] : location;
  if (!first) return undefined;
  try {
    const origin = new URL(first, requestUrl).origin;
    return origin === "null" ? undefined : origin;
  } catch {
    return undefined;
  }
}

/** What a 3xx reply is reported as: the redirect's origin only, and that it was not followed. */
export function redirectText(
  status: number,
  location: string | string[] | undefined,
  requestUrl: string,
): string {
  const origin = redirectOrigin(location, requestUrl);
  const where = origin ? `a redirect to ${origin}` : `a redirect (HTTP ${status}) to no http(s) address`;
  return `${where}, which the workbench does not follow; give the address the service answers at as the base URL`;
}
