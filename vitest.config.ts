import { defineConfig } from "vitest/config";

// One vitest run for the whole workspace: every package with a vitest.config.ts is a project.
export default defineConfig({
  test: {
    // apps/api's HTTP tests run a second time on PostgreSQL (apps/api/vitest.postgres.config.ts)
    projects: ["packages/*", "apps/*", "datasets", "apps/api/vitest.postgres.config.ts"],
  },
});
