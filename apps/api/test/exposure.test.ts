/**
 * Serving beyond 127.0.0.1 with people's own tokens and no shared one: refused with no token at all, allowed once
 * a person has one, and never open, even after every person's token is revoked. (The address is 127.0.0.2: on
 * the loopback network, but not the one address that may go without a token.)
 */

import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startWorkbench } from "../src/cli/serve.js";
import { serveConfig } from "../src/config.js";
import { newToken } from "../src/security/person-tokens.js";
import { openStorage } from "../src/storage/sqlite.js";
import { tempDir } from "./helpers.js";

const tmp = tempDir("wb-exposure-");
afterAll(() => tmp.cleanup());

const config = (dir: string) =>
  serveConfig({ "data-dir": dir, host: "127.0.0.2", port: "0", "no-reference": true }, {});

describe("serving beyond 127.0.0.1 without a shared token", () => {
  it("is refused while nobody has a token, and says how to give one", async () => {
    await expect(startWorkbench(config(join(tmp.dir, "none")))).rejects.toThrow(
      /needs a bearer token.*workbench tokens create/,
    );
  });

  it("is allowed once a person has a token; the API is never open, even when every token is revoked", async () => {
    const dir = join(tmp.dir, "people");
    const storage = openStorage(join(dir, "workbench.sqlite"));
    const alice = newToken("alice");
    await storage.insertToken(alice.row);
    await storage.close();
    const wb = await startWorkbench(config(dir));
    try {
      expect(wb.url).toMatch(/^http:\/\/127\.0\.0\.2:\d+$/);
      const get = (token?: string) =>
        fetch(`${wb.url}/api/datasets`, token ? { headers: { authorization: `Bearer ${token}` } } : {});
      expect((await get()).status).toBe(401);
      expect((await get(alice.token)).status).toBe(200);
      await wb.storage.revokeToken("alice");
      expect((await get(alice.token)).status).toBe(401);
      // no active token left: still closed, not open
      expect((await get()).status).toBe(401);
    } finally {
      await wb.close();
    }
  });
});
