import { defineProject } from "vitest/config";

// The API's HTTP tests again, on PostgreSQL: every test bench (test/helpers.ts testBench) opens a fresh database of
// the test server instead of a SQLite file. The files listed use the storage interface only.
export default defineProject({
  test: {
    name: "api-postgres",
    include: [
      "test/runs.test.ts",
      "test/example-pages.test.ts",
      "test/servers.test.ts",
      "test/datasets.test.ts",
      "test/app.test.ts",
      "test/security.test.ts",
      "test/events.test.ts",
      "test/rate-limit.test.ts",
      "test/faults.test.ts",
      "test/key-leak.test.ts",
      "test/ssrf.test.ts",
      "test/upload-errors.test.ts",
      "test/upload-limits.test.ts",
      "test/cost-guard.test.ts",
      "test/replay-swap.test.ts",
      "test/server-repoint.test.ts",
      "test/key-order.test.ts",
      "test/api-doc.test.ts",
      "test/analysis/**/*.test.ts",
    ],
    exclude: [
      // the command line works on a data folder (SQLite)
      "test/analysis/cli.test.ts",
    ],
    env: { WORKBENCH_TEST_STORE: "postgres" },
    globalSetup: ["test/postgres-cluster.ts"],
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
