import { defineProject } from "vitest/config";

// Real SQLite files, real reference servers over HTTP and child processes: generous timeouts on busy machines.
export default defineProject({
  test: {
    name: "api",
    include: ["test/**/*.test.ts"],
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
