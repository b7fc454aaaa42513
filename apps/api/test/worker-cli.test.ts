/** `workbench worker` and `serve --workers`: what they refuse, each with what would be right (exit 2). */

import { describe, expect, it } from "vitest";
import { serveConfig } from "../src/config.js";
import { runWorkbench } from "./child.js";

describe("workbench worker: usage", () => {
  it("needs the shared database, and says how to give it", async () => {
    const { code, stderr } = await runWorkbench(["worker"], { WORKBENCH_DATABASE_URL: "" });
    expect(code).toBe(2);
    expect(stderr).toMatch(/needs the shared database: --database-url postgres:\/\/.*WORKBENCH_DATABASE_URL/);
  });

  it("refuses no workers and a URL that is not PostgreSQL's, without repeating it", async () => {
    const none = await runWorkbench(["worker", "--database-url", "postgres://u@db/x", "--workers", "0"]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain("--workers must be 1 or more");
    const mysql = await runWorkbench(["worker", "--database-url", "mysql://u:hunter22@db/x"]);
    expect(mysql.code).toBe(2);
    expect(mysql.stderr).toContain("must be a PostgreSQL URL");
    expect(mysql.stderr).not.toContain("hunter22");
  });

  it("serve --workers needs a shared database; bad numbers are refused", () => {
    expect(() => serveConfig({ workers: "2" }, {})).toThrow(/--workers needs a shared database/);
    const db = { "database-url": "postgres://u@db/x" };
    expect(serveConfig(db, {}).queue).toEqual({ workers: 1, redisUrl: null, lockMs: 30_000 });
    expect(serveConfig({ ...db, workers: "0" }, {}).queue?.workers).toBe(0);
    expect(() => serveConfig({ ...db, workers: "many" }, {})).toThrow(
      /--workers must be a whole number from 0 to 64/,
    );
    expect(() => serveConfig(db, { WORKBENCH_QUEUE_LOCK_MS: "5" })).toThrow(
      /WORKBENCH_QUEUE_LOCK_MS must be a whole number from 1000/,
    );
    expect(serveConfig(db, {}).queue).not.toBeNull();
    expect(serveConfig({}, {}).queue).toBeNull();
  });
});
