import { defineProject } from "vitest/config";

export default defineProject({ test: { name: "calibration", include: ["test/**/*.test.ts"] } });
