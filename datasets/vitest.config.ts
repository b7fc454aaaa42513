import { defineProject } from "vitest/config";

export default defineProject({ test: { name: "datasets", include: ["test/**/*.test.ts"] } });
