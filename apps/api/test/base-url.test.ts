/**
 * A rejected base URL is never echoed: a key pasted into the wrong field must not come back in a response or
 * a command's message. At most the scheme (a known one) and the host are named.
 */

import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { UsageError } from "../src/cli/args.js";
import { serverFor } from "../src/cli/server-for.js";
import { SecretBox } from "../src/secrets/box.js";
import { openStorage } from "../src/storage/sqlite.js";
import { type TestBench, tempDir, testBench } from "./helpers.js";

const KEY = `sk-wrongfield-${randomBytes(10).toString("hex")}`;

/** Base URLs holding the key that the API must refuse without quoting. */
const BAD = [
  `not a url ${KEY}`,
  KEY,
  `${KEY}:443`,
  `${KEY}://host`,
  `http://user:${KEY}@[bad`,
  `http://host:99999/${KEY}`,
  `https://${KEY} .example.com/`,
  `http:// ${KEY}`,
];

const forms = [KEY, KEY.toLowerCase(), encodeURIComponent(KEY), KEY.slice(0, 20), KEY.slice(-16)];

let b: TestBench;
beforeAll(async () => {
  b = await testBench();
});
afterAll(async () => b.close());

const send = (method: "POST" | "PATCH", url: string, payload: object) =>
  b.app.inject({ method, url, headers: { "x-workbench": "1" }, payload });

describe("a rejected base URL", () => {
  it("is described without its text in the 400 of POST and PATCH", async () => {
    const created = await send("POST", "/api/servers", {
      name: "s",
      baseUrl: "http://10.0.0.9:8009",
      models: ["m"],
    });
    expect(created.statusCode).toBe(201);
    const id = created.json().id as string;
    for (const baseUrl of BAD) {
      for (const res of [
        await send("POST", "/api/servers", { name: "s", baseUrl, models: ["m"] }),
        await send("PATCH", `/api/servers/${id}`, { baseUrl }),
      ]) {
        expect(res.statusCode, baseUrl).toBe(400);
        for (const form of forms) expect(res.body, baseUrl).not.toContain(form);
        expect(res.json().error.message, baseUrl).toMatch(/body\.baseUrl/);
      }
    }
    const kept = await b.app.inject({ method: "GET", url: `/api/servers/${id}` });
    expect(kept.json().baseUrl).toBe("http://10.0.0.9:8009");
    // what would be right is said; a known scheme is named
    const bare = await send("POST", "/api/servers", {
      name: "s",
      baseUrl: `not a url ${KEY}`,
      models: ["m"],
    });
    expect(bare.json().error.message).toContain("is not a URL");
    expect(bare.json().error.message).toContain("http://127.0.0.1:8009");
    const ftp = await send("POST", "/api/servers", {
      name: "s",
      baseUrl: `ftp://files.example/${KEY}`,
      models: ["m"],
    });
    expect(ftp.json().error.message).toContain("base_url must use http:// or https://, not ftp://");
  });
});

describe("the command line's --server", () => {
  const tmp = tempDir();
  const storage = openStorage(join(tmp.dir, "cli.sqlite"));
  const box = new SecretBox(randomBytes(32));
  afterAll(async () => {
    await storage.close();
    tmp.cleanup();
  });

  it("refuses a bad URL without quoting it, and a link-local host always (private ones are allowed)", async () => {
    for (const baseUrl of BAD) {
      const error = await serverFor(storage, box, baseUrl, "m", undefined).catch((e: unknown) => e);
      expect(error, baseUrl).toBeInstanceOf(UsageError);
      for (const form of forms) expect((error as Error).message, baseUrl).not.toContain(form);
    }
    for (const baseUrl of ["http://169.254.169.254", "http://[fd00:ec2::254]", "http://0xa9fea9fe/"]) {
      const error = await serverFor(storage, box, baseUrl, "m", undefined).catch((e: unknown) => e);
      expect(error, baseUrl).toBeInstanceOf(UsageError);
      expect((error as Error).message, baseUrl).toContain("never connects to");
    }
    expect(await storage.listServers()).toEqual([]);
    await expect(serverFor(storage, box, "http://10.0.0.9:8009", "m", undefined)).resolves.toMatch(/^srv_/);
  });
});
