const { startReplymock } = require("replymock");

module.exports = async function globalSetup() {
  globalThis.replymock = await startReplymock();
  process.env.REPLYMOCK_URL = globalThis.replymock.url; // the workers' connectReplymock() reads it
};
