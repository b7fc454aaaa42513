import { defineProject } from "vitest/config";

// Loading spam-assassin reads ~44 MB; on a busy 2-core machine that can pass the 5 s default timeout.
export default defineProject({
  test: { name: "datasets", include: ["test/**/*.test.ts"], testTimeout: 60_000 },
});
