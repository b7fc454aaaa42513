import { defineProject } from "vitest/config";

export default defineProject({
  test: { name: "scorer", include: ["test/**/*.test.ts"], testTimeout: 20000 },
});
