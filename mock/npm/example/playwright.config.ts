import { defineConfig } from "@playwright/test";

const port = Number(process.env.PAGE_PORT ?? 4173);

export default defineConfig({
  testDir: "e2e",
  globalSetup: "./e2e/global-setup.ts", // one replymock for every worker
  workers: 2,
  fullyParallel: true,
  webServer: { command: `node e2e/serve-page.mjs ${port}`, url: `http://127.0.0.1:${port}/` },
  use: {
    baseURL: `http://127.0.0.1:${port}`,
    launchOptions: { executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium" },
  },
});
