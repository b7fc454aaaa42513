import react from "@vitejs/plugin-react";
import { defineProject } from "vitest/config";

// Component and transform tests run in happy-dom; test/e2e.test.ts switches itself to node
// (`// @vitest-environment node`) and drives Debian's Chromium against the real API.
export default defineProject({
  plugins: [react()],
  test: {
    name: "web",
    environment: "happy-dom",
    include: ["test/**/*.test.ts", "test/**/*.test.tsx"],
  },
});
