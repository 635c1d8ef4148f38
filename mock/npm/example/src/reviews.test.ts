import { inject, test as base } from "vitest";
import { connectReplymock, type Session } from "replymock";
import { unansweredReviews } from "./reviews.js";

const mock = connectReplymock(inject("replymockURL"));

// Each test has a session of its own, so tests run concurrently on one server.
const test = base.extend<{ session: Session }>({
  session: async ({ task }, use) => use(mock.session(task.name)),
});

test.concurrent("lists the unanswered reviews, newest first", async ({ session, expect }) => {
  await session.seedReviews([
    { product_valuation: 1, text: "Пришёл с трещиной" },
    { product_valuation: 5, text: "Отличный чайник", answer_text: "Спасибо за отзыв!" },
    { product_valuation: 4, text: "Хороший, но шумный" },
  ]);
  const reviews = await unansweredReviews(session.apiURL, session.headers);
  expect(reviews.map((r) => r.text)).toEqual(["Пришёл с трещиной", "Хороший, но шумный"]);
  await session.verify({ method: "GET", path: "/api/v1/feedbacks", query: { answered: 0 } }, { count: 1 });
});

test.concurrent("tries once more after a 503", async ({ session, expect }) => {
  await session.failNext(1, "GET", "/feedbacks", 503);
  expect(await unansweredReviews(session.apiURL, session.headers)).not.toHaveLength(0);
  await session.verify({ method: "GET", path: "/api/v1/feedbacks" }, { count: 2 });
});
