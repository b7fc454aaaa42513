/**
 * The path the router sees: dot segments (`.`, `..`, `%2e`) resolved and runs of slashes collapsed, so
 * `/api/./servers`, `/api//servers` and `/x/../api/servers` reach the route `/api/servers` as that path does,
 * and every access decision is made on the route matched (never on the raw text).
 */

/** Rewrites a request target (path and query) to its canonical form; a target that is not a path stays as it is. */
export function canonicalUrl(raw: string): string {
  if (!raw.startsWith("/")) return raw;
  const q = raw.indexOf("?");
  const path = q < 0 ? raw : raw.slice(0, q);
  const query = q < 0 ? "" : raw.slice(q);
  // Collapse slashes first: `//api` would otherwise read as a host name.
  const collapsed = path.replace(/\/{2,}/g, "/");
  if (!/(^|\/)(\.|%2e){1,2}(\/|$)/i.test(collapsed)) return collapsed + query;
  try {
    // WHATWG URL parsing resolves `.` and `..` segments, percent-encoded ones included, and never climbs above `/`.
    return new URL(collapsed, "http://workbench.invalid").pathname + query;
  } catch {
    return collapsed + query;
  }
}

/**
 * The decoded path of a request target, lower-cased, for prefix tests (`/api`, `/docs`): decoded until it no longer
 * changes (`%2561` counts as `a`), so a doubly encoded path is treated as what it could become; undecodable text
 * stays encoded.
 */
function decodedPath(url: string): string {
  let path = url.split("?")[0];
  for (let i = 0; i < 4; i++) {
    let next: string;
    try {
      next = decodeURIComponent(path);
    } catch {
      break;
    }
    if (next === path) break;
    path = next;
  }
  return path.toLowerCase();
}

/** Whether a path is the API's or the documentation's (`/api`, `/api/...`, `/docs`, `/docs/...`), after decoding. */
export function isApiPath(url: string): boolean {
  const path = decodedPath(url);
  return /^\/(api|docs)(\/|$)/.test(path);
}
