import { defineProject } from "vitest/config";

// Real SQLite files, a real PostgreSQL (started once per run: test/postgres-cluster.ts), real reference servers
// over HTTP and child processes: generous timeouts on busy machines.
export default defineProject({
  test: {
    name: "api",
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/postgres-cluster.ts"],
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
