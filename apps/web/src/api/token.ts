/** The workbench's bearer token, when it was started with one (kept in this browser's session storage). */

const KEY = "workbench-token";

/** The stored token, or null. */
export function getToken(): string | null {
  try {
    return globalThis.sessionStorage?.getItem(KEY) ?? null;
  } catch {
    return null;
  }
}

/** Stores (or, with null, forgets) the token. */
export function setToken(token: string | null): void {
  try {
    if (token) globalThis.sessionStorage?.setItem(KEY, token);
    else globalThis.sessionStorage?.removeItem(KEY);
  } catch {
    // storage unavailable (private mode): the token lasts until the page reloads
  }
}
