/**
 * Per-person API tokens (`workbench tokens create --name alice`): 32 random bytes, base64url, after the prefix
 * `wbt_` so that a leaked one is recognisable. Only the token's SHA-256 is stored: a token is a 256-bit random
 * secret, not a password, so no dictionary can guess it and a slow hash (scrypt, argon2) would only slow every
 * request down; a plain digest also lets each request find its token by an indexed lookup.
 */

import { createHash, randomBytes } from "node:crypto";
import type { TokenRow } from "../storage/types.js";

const PREFIX = "wbt_";

/** What a person's name may be: 1-64 of a-z, 0-9, dot, underscore, hyphen. */
export const TOKEN_NAME = /^[a-z0-9._-]{1,64}$/;

/** SHA-256 of a token, hex: what is stored and looked up. */
export function hashToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

/** A new token for `name` and the row that stores it (its hash, never the token). */
export function newToken(name: string): { token: string; row: TokenRow } {
  const token = PREFIX + randomBytes(32).toString("base64url");
  const row = {
    id: `tok_${randomBytes(9).toString("base64url")}`,
    name,
    hash: hashToken(token),
    createdAt: new Date().toISOString(),
    revokedAt: null,
  };
  return { token, row };
}
