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
      // exposed, it refuses servers on private addresses (SSRF), as with a shared token
      const added = await fetch(`${wb.url}/api/servers`, {
        method: "POST",
        headers: { authorization: `Bearer ${alice.token}`, "content-type": "application/json" },
        body: JSON.stringify({ name: "inside", baseUrl: "http://10.1.2.3:8009", models: ["m"] }),
      });
      expect(added.status).toBe(400);
      expect(await added.text()).toMatch(/10\.0\.0\.0\/8.*--allow-private-servers/);
      await wb.storage.revokeToken("alice");
      expect((await get(alice.token)).status).toBe(401);
      // no active token left: still closed, not open
      expect((await get()).status).toBe(401);
    } finally {
      await wb.close();
    }
  });
});
