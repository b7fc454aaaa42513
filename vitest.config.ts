import { defineConfig } from "vitest/config";

// One vitest run for the whole workspace: every package with a vitest.config.ts is a project.
export default defineConfig({
  test: {
    projects: ["packages/*", "apps/*", "datasets"],
  },
});
