// The same types through require(): CommonJS projects get them too.
import replymock = require("replymock");

export async function checks(): Promise<number> {
  const mock: replymock.ReplymockServer = await replymock.startReplymock({ scenario: "flaky" });
  const session: replymock.Session = mock.session();
  // @ts-expect-error: txt is no field of a review
  await session.seedReviews([{ product_valuation: 1, txt: "Опечатка" }]);
  const health: replymock.Health = await mock.health();
  await mock.stop();
  return health.reviews;
}
