/** The 32-byte key that encrypts secrets at rest: from an environment variable or a generated key file. */

import { randomBytes } from "node:crypto";
import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** The environment variable that supplies the key (64 hex digits or 32 bytes in base64). */
export const SECRET_KEY_ENV = "WORKBENCH_SECRET_KEY";

/** The key file's name inside the data folder (created with mode 0600 when absent). */
export const KEY_FILE = "secret.key";

/** Decodes a key given as 64 hex digits or base64 of 32 bytes. */
export function parseKey(text: string, where: string): Buffer {
  const t = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(t)) return Buffer.from(t, "hex");
  if (/^[A-Za-z0-9+/_-]{42,44}={0,2}$/.test(t)) {
    const b = Buffer.from(t.replace(/-/g, "+").replace(/_/g, "/"), "base64");
    if (b.length === 32) return b;
  }
  throw new Error(
    `${where} must hold a 256-bit key: 64 hex digits or 32 bytes in base64 (for example the output of \`openssl rand -hex 32\`)`,
  );
}

/**
 * The secret key: `$WORKBENCH_SECRET_KEY` when set, else `<dataDir>/secret.key`, generated (mode 0600) on
 * first use. A key file that others can read is made private again.
 */
export function loadSecretKey(dataDir: string, env: NodeJS.ProcessEnv = process.env): Buffer {
  const fromEnv = env[SECRET_KEY_ENV];
  if (fromEnv !== undefined && fromEnv !== "") return parseKey(fromEnv, SECRET_KEY_ENV);
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const file = join(dataDir, KEY_FILE);
  try {
    writeFileSync(file, `${randomBytes(32).toString("hex")}\n`, { mode: 0o600, flag: "wx" });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
  }
  if ((statSync(file).mode & 0o077) !== 0) chmodSync(file, 0o600);
  return parseKey(readFileSync(file, "utf8"), file);
}
