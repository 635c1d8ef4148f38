// Sessions on the one server vitest.setup.ts started, from another
// worker thread than reviews.test.ts's.
import { isMainThread } from "node:worker_threads";
import { inject, test as base } from "vitest";
import { connectReplymock, VerificationError, type Session } from "replymock";
import { unansweredReviews } from "./reviews.js";

const mock = connectReplymock(inject("replymockURL"));
const test = base.extend<{ session: Session }>({
  session: async ({ task }, use) => use(mock.session(task.name)),
});

test("runs in a worker thread", ({ expect }) => {
  expect(isMainThread).toBe(false);
});

test.concurrent("a session's scenario, seeds and faults are its own", async ({ session, expect }) => {
  const other = mock.session("other");
  await session.useScenario("empty-shop");
  await other.seedReviews([{ product_valuation: 2, text: "Не тот цвет" }]);
  await other.failNext(1, "GET", "/feedbacks", 503);
  expect(await unansweredReviews(session.apiURL, session.headers)).toEqual([]);
  expect((await unansweredReviews(other.apiURL, other.headers)).map((r) => r.text)).toEqual(["Не тот цвет"]);
});

test.concurrent("a failed verification names the nearest misses", async ({ session, expect }) => {
  await unansweredReviews(session.apiURL, session.headers);
  const err = await session.verify({ method: "PATCH", path: "/api/v1/settings/ai" }).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(VerificationError);
  expect((err as Error).message).toContain(`requests matching PATCH /api/v1/settings/ai in session ${session.id}: 0, want at least 1`);
  expect((err as Error).message).toMatch(/nearest misses:\n  seq \d+ GET \/api\/v1\/feedbacks \(session \S+\): method: want "PATCH", got "GET"; path: want/);
});

test.concurrent("waitFor returns a request that comes later", async ({ session, expect }) => {
  const waiting = session.waitFor({ path: "/api/v1/feedbacks", query: { answered: 0 } }, { timeout: 5000 });
  setTimeout(() => void unansweredReviews(session.apiURL, session.headers), 200);
  const entry = await waiting;
  expect(entry.session).toBe(session.id);
  expect(entry.status).toBe(200);
});

test.concurrent("reset clears the faults and the journal, keeps the seeds", async ({ session, expect }) => {
  await session.seedReviews([{ product_valuation: 3, text: "Нормально" }]);
  await session.addFault({ error: { status: 500 } });
  await session.reset();
  expect((await unansweredReviews(session.apiURL, session.headers)).map((r) => r.text)).toEqual(["Нормально"]);
  await session.verify({ path: "/api/v1/feedbacks" }, { count: 1 });
});

test.concurrent("gives up when the service keeps failing", async ({ session, expect }) => {
  await session.addFault({ path: "/feedbacks", error: { status: 500 } });
  await expect(unansweredReviews(session.apiURL, session.headers)).rejects.toThrow("HTTP 500");
});
