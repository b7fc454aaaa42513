/**
 * Test databases on the test PostgreSQL server (test/postgres-cluster.ts): one fresh database per call, so test
 * files run in parallel, dropped by `drop`.
 */

import { randomBytes } from "node:crypto";
import pg from "pg";
import { inject } from "vitest";

/** A fresh, empty database: its URL, and how to drop it. */
export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

/** Runs one statement on the server's maintenance database. */
async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: inject("postgresUrl") });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** Creates a database `wb_<random>` on the test server. Throws why when there is no test server. */
export async function testDatabase(): Promise<TestDatabase> {
  if (!inject("postgresUrl")) throw new Error(inject("postgresError"));
  const name = `wb_${randomBytes(6).toString("hex")}`;
  await admin(`CREATE DATABASE ${name}`);
  const url = new URL(inject("postgresUrl"));
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}
