"use strict";
// The helper through require(), under node:test: each verb does what it
// says on a server of this file's own, sessions stay apart, and errors
// say what went wrong.
const { test, before, after } = require("node:test");
const assert = require("node:assert/strict");
const { startReplymock, connectReplymock, ReplymockError, VerificationError } = require("replymock");

let mock;
before(async () => {
  mock = await startReplymock();
});
after(() => mock.stop());

async function list(session, query = "limit=20") {
  const res = await session.fetch(`/feedbacks?${query}`);
  return { status: res.status, body: await res.json() };
}

test("health says the package's version", async () => {
  const health = await mock.health();
  assert.equal(health.status, "ok");
  assert.equal(health.version, require("replymock/package.json").version);
  assert.match(mock.url, /^http:\/\/127\.0\.0\.1:\d+$/);
});

test("seedReviews, appendReviews and clearReviews", async () => {
  const s = mock.session("seed");
  const seeded = await s.seedReviews([{ product_valuation: 1, text: "первый" }, { product_valuation: 5, text: "второй" }]);
  assert.deepEqual([seeded.session, seeded.mode, seeded.added, seeded.total], [s.id, "replace", 2, 2]);
  assert.equal((await s.appendReviews([{ product_valuation: 3, text: "новый" }])).total, 3);
  assert.deepEqual((await list(s)).body.data.feedbacks.map((f) => f.text), ["новый", "первый", "второй"]);
  assert.equal(await s.clearReviews(), 3);
  assert.ok((await list(s, "counts_only=1")).body.data.total > 3, "the scenario's reviews are back");
});

test("a bad review names its field", async () => {
  const err = await mock.session().seedReviews([{ product_valuation: 9 }]).catch((e) => e);
  assert.ok(err instanceof ReplymockError, String(err));
  assert.equal(err.status, 400);
  assert.equal(err.code, "invalid_body");
  assert.equal(err.field, "reviews[0].product_valuation");
  assert.match(err.message, /PUT \/__mock\/data\?session=\S+: 400 invalid_body \(reviews\[0\]\.product_valuation\)/);
});

test("failNext fails the next n requests of its session only", async () => {
  const s = mock.session("failnext");
  const other = mock.session("other");
  const fault = await s.failNext(2, "GET", "/feedbacks", 503);
  assert.ok(fault.id);
  assert.equal((await list(other)).status, 200);
  const statuses = [];
  for (let i = 0; i < 3; i++) statuses.push((await list(s)).status);
  assert.deepEqual(statuses, [503, 503, 200]);
});

test("addFault, removeFault and clearFaults", async () => {
  const s = mock.session("faults");
  const a = await s.addFault({ path: "/feedbacks", error: { status: 429 } });
  assert.equal((await list(s)).status, 429);
  await s.removeFault(a.id);
  assert.equal((await list(s)).status, 200);
  await s.addFault({ error: { status: 500 } });
  await s.addFault({ error: { status: 502 } });
  assert.equal(await s.clearFaults(), 2);
  assert.equal((await list(s)).status, 200);
  const gone = await s.removeFault(a.id).catch((e) => e);
  assert.ok(gone instanceof ReplymockError && gone.status === 404, String(gone));
});

test("useScenario changes its session only; an unknown one is refused", async () => {
  const s = mock.session("scenario");
  await s.useScenario("empty-shop");
  assert.equal((await list(s, "counts_only=1")).body.data.total, 0);
  assert.ok((await list(mock.session(), "counts_only=1")).body.data.total > 0);
  const err = await s.useScenario("no-such-scenario").catch((e) => e);
  assert.ok(err instanceof ReplymockError, String(err));
  assert.match(err.message, /no-such-scenario/);
});

test("verify counts, and a failure names the nearest misses", async () => {
  const s = mock.session("verify");
  await list(s, "answered=1&limit=5");
  const held = await s.verify({ method: "GET", path: "/api/v1/feedbacks", query: { answered: 1 } }, { count: 1 });
  assert.equal(held.matched, 1);
  const err = await s.verify({ method: "GET", path: "/api/v1/feedbacks", query: { answered: 0 } }).catch((e) => e);
  assert.ok(err instanceof VerificationError, String(err));
  assert.equal(err.verification.matched, 0);
  assert.equal(err.verification.near_misses[0].differs["query.answered"].got, "1");
  assert.equal(err.message, [
    `replymock: requests matching GET /api/v1/feedbacks query.answered=0 in session ${s.id}: 0, want at least 1`,
    "nearest misses:",
    `  seq ${err.verification.near_misses[0].seq} GET /api/v1/feedbacks (session ${s.id}): query.answered: want "0", got "1"`,
  ].join("\n"));
  const many = await s.verify({ path: "/api/v1/feedbacks" }, { max: 0 }).catch((e) => e);
  assert.match(many.message, /: 1, want exactly 0\nmatching seqs: \d+$/);
});

test("a verification that fails because the session was evicted says so", async () => {
  const small = await startReplymock({ args: ["--max-sessions", "2"] });
  try {
    const s = small.session("evicted");
    assert.equal((await s.fetch("/feedbacks?limit=1")).status, 200);
    await small.session("other-1").fetch("/feedbacks?limit=1"); // evicts s
    await small.session("other-2").fetch("/feedbacks?limit=1");
    const res = await s.fetch("/settings/ai");
    assert.ok(res.headers.get("x-mock-warning").includes(`session ${s.id} was evicted at `), res.headers.get("x-mock-warning"));
    const err = await s.verify({ path: "/api/v1/feedbacks" }).catch((e) => e);
    assert.ok(err instanceof VerificationError, String(err));
    assert.ok(err.message.includes(`\nsession ${s.id} was evicted at `), err.message);
    assert.ok(err.message.includes("(the least recently used, past --max-sessions 2)"), err.message);
  } finally {
    await small.stop();
  }
});

test("waitFor returns a request that comes later; none in time names the nearest misses", async () => {
  const s = mock.session("wait");
  const waiting = s.waitFor({ method: "GET", query: { limit: 7 } }, { timeout: 5000 });
  setTimeout(() => list(s, "limit=7"), 100);
  const entry = await waiting;
  assert.equal(entry.query, "limit=7");
  assert.equal(entry.session, s.id);
  const err = await s.waitFor({ method: "PATCH" }, { timeout: 300 }).catch((e) => e);
  assert.ok(err instanceof VerificationError, String(err));
  assert.match(err.message, /^replymock: no request came within 300 ms: requests matching PATCH in session \S+: 0, want at least 1\nnearest misses:\n  seq \d+ GET/);
});

test("requests and clearRequests: the session's journal", async () => {
  const s = mock.session("journal");
  await list(s, "limit=1");
  await list(s, "limit=2");
  await list(mock.session(), "limit=3");
  assert.deepEqual((await s.requests()).map((e) => e.query), ["limit=1", "limit=2"]);
  assert.deepEqual((await s.requests({ query: { limit: 2 } })).map((e) => e.query), ["limit=2"]);
  await s.clearRequests();
  assert.deepEqual(await s.requests(), []);
});

test("setOverrides and settings", async () => {
  const s = mock.session("overrides");
  assert.equal((await s.settings()).feedback.length, 5);
  await s.setOverrides({ strict: true });
  assert.equal((await list(s, "take=5")).status, 400);
  assert.equal((await list(mock.session(), "take=5")).status, 200);
});

test("reset: faults and journal go, seeded reviews stay", async () => {
  const s = mock.session("reset");
  await s.seedReviews([{ product_valuation: 2, text: "остаётся" }]);
  await s.addFault({ error: { status: 500 } });
  await s.reset();
  assert.deepEqual((await list(s)).body.data.feedbacks.map((f) => f.text), ["остаётся"]);
  assert.equal((await s.requests()).length, 1);
});

test("connectReplymock reaches the server by URL or REPLYMOCK_URL, and says what it needs", async () => {
  assert.equal((await connectReplymock(mock.url).health()).status, "ok");
  process.env.REPLYMOCK_URL = mock.url;
  assert.equal(connectReplymock().url, mock.url);
  delete process.env.REPLYMOCK_URL;
  assert.throws(() => connectReplymock(), /needs the server's URL, or REPLYMOCK_URL set/);
  const err = await connectReplymock("http://127.0.0.1:9").health().catch((e) => e);
  assert.match(err.message, /GET \/__mock\/health: .*is a server running at http:\/\/127\.0\.0\.1:9\?/);
});

test("an admin token is sent; a client without it is told", async () => {
  const locked = await startReplymock({ adminToken: "s3cret", scenario: "empty-shop" });
  try {
    const s = locked.session();
    await s.seedReviews([{ product_valuation: 4 }]);
    assert.equal((await list(s, "counts_only=1")).body.data.total, 1);
    const err = await connectReplymock(locked.url).session().reset().catch((e) => e);
    assert.equal(err.status, 401);
    assert.match(err.message, /pass it as adminToken/);
  } finally {
    await locked.stop();
  }
});

test("the helper's flags win over REPLYMOCK_* variables; the admin token is taken from them", async () => {
  const env = { ...process.env, REPLYMOCK_LOG_LEVEL: "warn", REPLYMOCK_ADDR: "127.0.0.1:1", REPLYMOCK_ADMIN_TOKEN: "t0k3n" };
  const m = await startReplymock({ env });
  try {
    const s = m.session();
    await s.useScenario("empty-shop");
    assert.equal((await list(s, "counts_only=1")).body.data.total, 0);
    assert.equal((await connectReplymock(m.url).session().reset().catch((e) => e)).status, 401);
  } finally {
    await m.stop();
  }
});

test("a server that cannot start says why", async () => {
  const err = await startReplymock({ args: ["--no-such-flag"] }).catch((e) => e);
  assert.match(err.message, /exited \(code 2\) before it served; its log:\n.*flag provided but not defined: -no-such-flag/s);
});

test("stop ends the server", async () => {
  const m = await startReplymock();
  await m.stop();
  assert.throws(() => process.kill(m.pid, 0), { code: "ESRCH" });
  await assert.rejects(m.health(), /is a server running/);
});
