const { connectReplymock } = require("replymock");

const mock = connectReplymock(); // REPLYMOCK_URL, from global-setup.cjs

test("a session's fault is its own", async () => {
  const session = mock.session(expect.getState().currentTestName);
  await session.failNext(1, "GET", "/feedbacks", 503);
  expect((await session.fetch("/feedbacks")).status).toBe(503);
  expect((await mock.session("another").fetch("/feedbacks")).status).toBe(200);
  expect((await session.fetch("/feedbacks")).status).toBe(200);
});
