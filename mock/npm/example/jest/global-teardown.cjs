module.exports = async function globalTeardown() {
  await globalThis.replymock.stop();
};
