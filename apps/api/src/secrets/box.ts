/** AES-256-GCM encryption of secrets at rest (API keys, base URLs with credentials). */

import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";

const PREFIX = "v1.";
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** A secret that cannot be read back (another key, or an altered value). */
export class SecretError extends Error {
  override name = "SecretError";
}

/** Encrypts and decrypts short strings; `context` (e.g. "server:srv_x:apiKey") is bound as associated data. */
export class SecretBox {
  readonly #key: Buffer;

  constructor(key: Buffer) {
    if (key.length !== 32) throw new Error("SecretBox needs a 32-byte key");
    this.#key = Buffer.from(key);
  }

  /** `v1.` + base64url(iv | tag | ciphertext). */
  encrypt(plaintext: string, context: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv("aes-256-gcm", this.#key, iv);
    cipher.setAAD(Buffer.from(context));
    const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
    return PREFIX + Buffer.concat([iv, cipher.getAuthTag(), body]).toString("base64url");
  }

  /** The plaintext of `encrypt(plaintext, context)`; SecretError when the key or the context differ. */
  decrypt(sealed: string, context: string): string {
    if (!sealed.startsWith(PREFIX)) throw new SecretError("a stored secret has an unknown format");
    const raw = Buffer.from(sealed.slice(PREFIX.length), "base64url");
    if (raw.length < IV_BYTES + TAG_BYTES) throw new SecretError("a stored secret is truncated");
    try {
      const decipher = createDecipheriv("aes-256-gcm", this.#key, raw.subarray(0, IV_BYTES));
      decipher.setAAD(Buffer.from(context));
      decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
      return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString(
        "utf8",
      );
    } catch {
      throw new SecretError(
        "a stored secret cannot be decrypted: the secret key changed (WORKBENCH_SECRET_KEY or secret.key in the data folder); set the server's API key again",
      );
    }
  }
}
