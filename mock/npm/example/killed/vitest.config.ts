// The run e2e.test.mjs kills: vitest.setup.ts's server, and a test that
// waits to be killed.
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

export default defineConfig({
  root: fileURLToPath(new URL("..", import.meta.url)),
  test: {
    globalSetup: ["./vitest.setup.ts"],
    pool: "threads",
    include: ["killed/*.test.ts"],
  },
});
