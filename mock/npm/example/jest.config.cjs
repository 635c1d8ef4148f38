// Jest: one replymock for every worker, started by the global setup.
module.exports = {
  globalSetup: "./jest/global-setup.cjs",
  globalTeardown: "./jest/global-teardown.cjs",
  testMatch: ["<rootDir>/jest/*.test.cjs"],
};
