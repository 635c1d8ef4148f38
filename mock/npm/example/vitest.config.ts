import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    globalSetup: ["./vitest.setup.ts"], // one replymock for every worker
    pool: "threads",
    maxWorkers: 2,
    include: ["src/**/*.test.ts"],
  },
});
