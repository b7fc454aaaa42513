import { randomBytes } from "node:crypto";
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { SecretBox } from "../src/secrets/box.js";
import { loadSecretKey, parseKey } from "../src/secrets/key.js";
import { tempDir } from "./helpers.js";

const tmp = tempDir();
afterAll(() => tmp.cleanup());

describe("secrets at rest", () => {
  it("encrypts with a fresh IV each time and decrypts only with the same key and context", () => {
    const box = new SecretBox(randomBytes(32));
    const a = box.encrypt("sk-abc", "server:srv_1:apiKey");
    const b = box.encrypt("sk-abc", "server:srv_1:apiKey");
    expect(a).not.toBe(b);
    expect(a).not.toContain("sk-abc");
    expect(box.decrypt(a, "server:srv_1:apiKey")).toBe("sk-abc");
    expect(() => box.decrypt(a, "server:srv_2:apiKey")).toThrow(/cannot be decrypted/);
    expect(() => new SecretBox(randomBytes(32)).decrypt(a, "server:srv_1:apiKey")).toThrow(
      /secret key changed/,
    );
    const raw = Buffer.from(a.slice("v1.".length), "base64url");
    raw[raw.length - 1] ^= 1;
    const tampered = `v1.${raw.toString("base64url")}`;
    expect(tampered).not.toBe(a);
    expect(() => box.decrypt(tampered, "server:srv_1:apiKey")).toThrow(/cannot be decrypted/);
    expect(() => box.decrypt("plain", "x")).toThrow(/unknown format/);
  });

  it("generates a key file readable only by its owner and reuses it", () => {
    const dir = join(tmp.dir, "data");
    const key = loadSecretKey(dir, {});
    const file = join(dir, "secret.key");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(key.length).toBe(32);
    expect(loadSecretKey(dir, {}).equals(key)).toBe(true);
    expect(readFileSync(file, "utf8").trim()).toBe(key.toString("hex"));
  });

  it("makes a key file others can read private again", () => {
    const dir = join(tmp.dir, "loose");
    loadSecretKey(dir, {});
    const file = join(dir, "secret.key");
    writeFileSync(file, `${"ab".repeat(32)}\n`, { mode: 0o644 });
    const key = loadSecretKey(dir, {});
    expect(key.toString("hex")).toBe("ab".repeat(32));
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it("takes the key from WORKBENCH_SECRET_KEY (hex or base64) and says what is wrong with a bad one", () => {
    const hex = randomBytes(32).toString("hex");
    expect(loadSecretKey(join(tmp.dir, "env"), { WORKBENCH_SECRET_KEY: hex }).toString("hex")).toBe(hex);
    const b64 = randomBytes(32).toString("base64");
    expect(parseKey(b64, "x").toString("base64")).toBe(b64);
    expect(() => loadSecretKey(tmp.dir, { WORKBENCH_SECRET_KEY: "short" })).toThrow(
      /WORKBENCH_SECRET_KEY must hold a 256-bit key: 64 hex digits/,
    );
  });
});
