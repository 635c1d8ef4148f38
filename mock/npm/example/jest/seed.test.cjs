const { connectReplymock } = require("replymock");

const mock = connectReplymock(); // REPLYMOCK_URL, from global-setup.cjs

test("a session's seeded reviews are its list", async () => {
  const session = mock.session(expect.getState().currentTestName);
  await session.seedReviews([{ product_valuation: 2, text: "Не тот цвет" }]);
  const res = await session.fetch("/feedbacks?limit=5");
  expect((await res.json()).data.feedbacks.map((f) => f.text)).toEqual(["Не тот цвет"]);
  await session.verify({ path: "/api/v1/feedbacks" }, { count: 1 });
});
