"use strict";
// replymock's helper for JavaScript tests: startReplymock runs the binary
// on a free loopback port for as long as the process that started it
// lives; connectReplymock reaches one started elsewhere (a global setup);
// a Session is one test's own state on it, with the verbs of Go's
// mocktest. Types: index.d.cts.

const { spawn } = require("node:child_process");
const { randomBytes } = require("node:crypto");
const { binaryPath } = require("./lib/binary.cjs");

const startTimeout = 30_000;
const stopTimeout = 10_000;
const logTail = 50; // lines of the server's log kept for error messages

/** An answer of the admin API that is not a success, or no answer. */
class ReplymockError extends Error {
  constructor(message, { status, code, field, details } = {}) {
    super(message);
    this.name = "ReplymockError";
    this.status = status;
    this.code = code;
    this.field = field;
    this.details = details;
  }
}

/** A verification that does not hold; its message names the nearest misses. */
class VerificationError extends ReplymockError {
  constructor(message, verification, pattern) {
    super(message, { status: 409, code: "verification_failed", details: verification });
    this.name = "VerificationError";
    this.verification = verification;
    this.pattern = pattern;
  }
}

/** A replymock server reached at url: its sessions and what applies to all of them. */
class Replymock {
  constructor(url, { adminToken } = {}) {
    if (!url) {
      throw new Error("replymock: connectReplymock needs the server's URL, or REPLYMOCK_URL set " +
        "(a global setup that started it with startReplymock sets it, or passes mock.url on)");
    }
    this.url = String(url).replace(/\/+$/, "");
    this.apiURL = `${this.url}/api/v1`;
    this.adminToken = adminToken;
  }

  /** A session no other test uses: name (a test's title) made fit for an id, and a random part. */
  session(name = "test") {
    const base = String(name).replace(/[^A-Za-z0-9._:@-]+/g, "_").slice(0, 100) || "test";
    return new Session(this, `${base}-${randomBytes(5).toString("hex")}`);
  }

  /** GET /__mock/health's data: status, scenario, reviews, uptime, version. */
  async health() {
    return (await admin(this, "GET", "/__mock/health")).data;
  }

  /** Switches the scenario of every session that has not picked its own. */
  async useScenario(name) {
    await admin(this, "PUT", "/__mock/scenario", { session: "*", body: { name } });
  }

  /** Returns every session to its start (seeded reviews and scenario picks stay). */
  async reset() {
    await admin(this, "POST", "/__mock/reset", { session: "*" });
  }
}

/** A server this process started: Replymock, and stop. */
class ReplymockServer extends Replymock {
  constructor(url, child, options) {
    super(url, options);
    this.pid = child.pid;
    this._child = child;
    this._exited = new Promise((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) resolve();
      else child.once("exit", () => resolve());
    });
    this._onExit = () => child.kill();
    process.once("exit", this._onExit);
  }

  /** Stops the server (it drains requests in flight) and waits until it has exited. */
  async stop() {
    process.removeListener("exit", this._onExit);
    const child = this._child;
    if (child.exitCode === null && child.signalCode === null) {
      child.stdin.end(); // --exit-on-stdin-close: a clean shutdown, on every platform
      const timer = setTimeout(() => child.kill("SIGKILL"), stopTimeout);
      await this._exited;
      clearTimeout(timer);
    }
  }
}

/** One test's session: what it changes, no other session sees. */
class Session {
  constructor(server, id) {
    this.server = server;
    this.id = id;
    this.apiURL = server.apiURL;
    this.headers = Object.freeze({ "X-Mock-Session": id });
  }

  /** fetch on the API as this session: path is under /api/v1 ("/feedbacks?limit=5"). */
  fetch(path, init = {}) {
    const headers = new Headers(init.headers);
    headers.set("X-Mock-Session", this.id);
    return fetch(this.apiURL + path, { ...init, headers });
  }

  /** Makes name this session's scenario. */
  async useScenario(name) {
    await admin(this.server, "PUT", "/__mock/scenario", { session: this.id, body: { name } });
  }

  /** Makes reviews the session's whole list, in the order given (the first newest, unless dated). */
  async seedReviews(reviews, options = {}) {
    return this._seed("replace", reviews, options);
  }

  /** Adds reviews to what the session's list holds; undated, they are the newest. */
  async appendReviews(reviews, options = {}) {
    return this._seed("append", reviews, options);
  }

  async _seed(mode, reviews, { scenario } = {}) {
    const query = scenario ? { scenario } : {};
    return (await admin(this.server, "PUT", "/__mock/data", { session: this.id, query, body: { mode, reviews } })).data;
  }

  /** Forgets the reviews seeded into this session, in every scenario; returns how many. */
  async clearReviews() {
    return (await admin(this.server, "DELETE", "/__mock/data", { session: this.id })).data.removed;
  }

  /** Adds a run-time fault for this session; returns it with its id. */
  async addFault(fault) {
    return (await admin(this.server, "POST", "/__mock/faults", { session: this.id, body: fault })).data;
  }

  /** The session's next n requests matching method and path (after /api/v1; "" any) answer status. */
  async failNext(n, method, path, status) {
    const fault = { times: n, error: { status } };
    if (method) fault.method = method;
    if (path) fault.path = path;
    return this.addFault(fault);
  }

  /** Removes the run-time fault with id (a fault addFault returned). */
  async removeFault(id) {
    await admin(this.server, "DELETE", `/__mock/faults/${encodeURIComponent(id)}`, { session: this.id });
  }

  /** Removes the session's run-time faults; returns how many. */
  async clearFaults() {
    return (await admin(this.server, "DELETE", "/__mock/faults", { session: this.id })).data.removed;
  }

  /** Replaces the session's auth, rate limit and strict mode overrides. */
  async setOverrides(overrides) {
    return (await admin(this.server, "PUT", "/__mock/overrides", { session: this.id, body: overrides })).data;
  }

  /** The session's settings, read past faults and auth. */
  async settings() {
    return (await admin(this.server, "GET", "/__mock/settings", { session: this.id })).data.settings;
  }

  /** The session's journal entries that match pattern, oldest first. */
  async requests(pattern = {}) {
    const query = patternQuery(pattern);
    if (pattern.limit) query.limit = String(pattern.limit);
    return (await admin(this.server, "GET", "/__mock/requests", { session: this.id, query })).data.requests;
  }

  /** Empties the session's journal. */
  async clearRequests() {
    await admin(this.server, "DELETE", "/__mock/requests", { session: this.id });
  }

  /**
   * Checks that the session's journal holds as many requests matching
   * pattern as times says (at least one by default); otherwise it throws
   * a VerificationError whose message names the nearest misses.
   */
  async verify(pattern = {}, times = {}) {
    const query = patternQuery(pattern);
    for (const k of ["count", "min", "max"]) {
      if (times[k] !== undefined) query[k] = String(times[k]);
    }
    const res = await admin(this.server, "GET", "/__mock/verify", { session: this.id, query, failed: 409 });
    if (res.status === 409) {
      const v = res.error.details;
      throw new VerificationError(`replymock: ${failure(describe(pattern, this.id), v)}`, v, pattern);
    }
    return res.data;
  }

  /**
   * Waits up to options.timeout ms (default 10 s) for a request matching
   * pattern in the session's journal and returns the oldest (set
   * pattern.since to wait for a newer one); when none comes, it throws an
   * Error that names the nearest misses.
   */
  async waitFor(pattern = {}, { timeout = 10_000 } = {}) {
    const deadline = Date.now() + timeout;
    for (;;) {
      const left = deadline - Date.now();
      const query = patternQuery(pattern);
      query.wait = `${Math.max(0, Math.min(left, 30_000))}ms`;
      const got = (await admin(this.server, "GET", "/__mock/requests", { session: this.id, query })).data.requests;
      if (got.length > 0) return got[0];
      if (Date.now() >= deadline) break;
    }
    const res = await admin(this.server, "GET", "/__mock/verify", { session: this.id, query: patternQuery(pattern), failed: 409 });
    if (res.status !== 409) {
      const [entry] = await this.requests(pattern);
      if (entry) return entry; // it came as the time ran out
    }
    const v = res.error.details;
    throw new VerificationError(`replymock: no request came within ${timeout} ms: ${failure(describe(pattern, this.id), v)}`, v, pattern);
  }

  /** Returns the session to its start: settings, faults, overrides, shop and journal (its scenario and seeded reviews stay). */
  async reset() {
    await admin(this.server, "POST", "/__mock/reset", { session: this.id });
  }
}

/**
 * startReplymock runs replymock on a free loopback port and resolves once
 * it answers /__mock/health. The server stops with stop(), and by itself
 * when this process exits, however it exits: it reads a pipe from this
 * process (--exit-on-stdin-close) and shuts down when the pipe closes.
 */
async function startReplymock(options = {}) {
  // The helper's own flags come last, so that they win over the
  // caller's and over REPLYMOCK_* variables; --log-level info comes
  // first (the address is read from an info line), for args to change.
  const args = ["--log-level", "info", ...(options.args ?? [])];
  if (options.scenario) args.push("--scenario", options.scenario);
  args.push("--addr", "127.0.0.1:0", "--log-format", "json", "--exit-on-stdin-close");
  let env = options.env ?? process.env;
  if (options.adminToken) env = { ...env, REPLYMOCK_ADMIN_TOKEN: options.adminToken }; // not in argv, which ps shows
  const bin = options.binary ?? binaryPath();
  const child = spawn(bin, args, { stdio: ["pipe", "ignore", "pipe"], env, windowsHide: true });
  child.stdin.on("error", () => {}); // EPIPE once the server is gone: nothing to tell
  const tail = [];
  const addr = await new Promise((resolve, reject) => {
    const fail = (why) => {
      clearTimeout(timer);
      child.kill("SIGKILL");
      reject(new Error(`replymock: ${why}; its log:\n${tail.join("\n")}`));
    };
    const timeout = options.startTimeout ?? startTimeout;
    const timer = setTimeout(() => fail(`${bin} did not start within ${timeout} ms`), timeout);
    child.once("error", (err) => fail(`could not run ${bin}: ${err.message}`));
    // "close", not "exit": its log is read to the end by then.
    child.once("close", (code, signal) => fail(`${bin} ${args.join(" ")} exited (${signal ?? `code ${code}`}) before it served`));
    readLines(child.stderr, (line) => {
      tail.push(line);
      if (tail.length > logTail) tail.shift();
      options.onLog?.(line);
      if (!line.includes('"replymock serving"')) return;
      try {
        const rec = JSON.parse(line);
        if (rec.msg === "replymock serving") {
          clearTimeout(timer);
          child.removeAllListeners("close");
          child.removeAllListeners("error");
          child.on("error", () => {}); // a kill that fails: stop's timeout says so
          resolve(rec.addr);
        }
      } catch { /* not a JSON line: a panic's text, say */ }
    });
  });
  const server = new ReplymockServer(`http://${addr}`, child, { adminToken: options.adminToken ?? env.REPLYMOCK_ADMIN_TOKEN });
  try {
    await server.health();
  } catch (err) {
    await server.stop();
    throw err;
  }
  // The server must not keep this process alive: when it exits, the pipe
  // closes and the server shuts down.
  child.unref();
  child.stdin.unref?.();
  child.stderr.unref?.();
  return server;
}

/** connectReplymock reaches a server started elsewhere: url, or REPLYMOCK_URL. */
function connectReplymock(url = process.env.REPLYMOCK_URL, options = {}) {
  return new Replymock(url, { adminToken: options.adminToken ?? process.env.REPLYMOCK_ADMIN_TOKEN });
}

// readLines calls onLine with each line the stream gives.
function readLines(stream, onLine) {
  let rest = "";
  stream.setEncoding("utf8");
  stream.on("data", (chunk) => {
    const lines = (rest + chunk).split("\n");
    rest = lines.pop();
    for (const l of lines) onLine(l);
  });
}

// admin calls the admin API and returns its answer's status and data;
// an error answer throws a ReplymockError, but the status failed, which
// it returns with the error.
async function admin(server, method, path, { session, query = {}, body, failed } = {}) {
  const u = new URL(server.url + path);
  if (session) u.searchParams.set("session", session);
  for (const [k, v] of Object.entries(query)) u.searchParams.set(k, v);
  // An X-Mock-* header tells the server no web page sent this (a page
  // cannot without a preflight), so a wait= read passes on any host name.
  const headers = { Accept: "application/json", "X-Mock-Session": session || "default" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (server.adminToken) headers.Authorization = `Bearer ${server.adminToken}`;
  const what = `${method} ${u.pathname}${u.search}`;
  let res;
  try {
    res = await fetch(u, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch (err) {
    throw new ReplymockError(`replymock: ${what}: ${err.cause?.message ?? err.message}: is a server running at ${server.url}?`);
  }
  const text = await res.text();
  let env;
  try {
    env = JSON.parse(text);
  } catch {
    throw new ReplymockError(`replymock: ${what} answered ${res.status}, not JSON: ${text.slice(0, 200)}`, { status: res.status });
  }
  if (res.ok && env.success) return { status: res.status, data: env.data };
  const e = env.error ?? {};
  if (res.status === failed) return { status: res.status, error: e };
  const field = e.field ? ` (${e.field})` : "";
  const hint = res.status === 401 ? "; the server has an admin token: pass it as adminToken" : "";
  throw new ReplymockError(`replymock: ${what}: ${res.status} ${e.code ?? ""}${field}: ${e.message ?? text.slice(0, 200)}${hint}`,
    { status: res.status, code: e.code, field: e.field, details: e.details });
}

// patternQuery is a request pattern as /__mock/requests and /__mock/verify take it.
function patternQuery(p) {
  const q = {};
  if (p.method) q.method = p.method;
  if (p.path) q.path = p.path;
  if (p.since) q.since = String(p.since);
  for (const part of ["query", "header", "body"]) {
    for (const [k, v] of Object.entries(p[part] ?? {})) q[`${part}.${k}`] = String(v);
  }
  return q;
}

// describe words a pattern as mocktest does: "PATCH /api/v1/settings/ai body.feedback.0.tone=formal in session s".
function describe(p, session) {
  const parts = [];
  if (p.method) parts.push(p.method);
  if (p.path) parts.push(p.path);
  for (const part of ["query", "header", "body"]) {
    for (const k of Object.keys(p[part] ?? {}).sort()) parts.push(`${part}.${k}=${p[part][k]}`);
  }
  if (parts.length === 0) parts.push("any request");
  parts.push(`in session ${session}`);
  if (p.since) parts.push(`after seq ${p.since}`);
  return parts.join(" ");
}

// failure words a failed verification over several lines, as mocktest
// does: the count, then the matching seqs or the nearest misses.
function failure(pattern, v) {
  let s = `requests matching ${pattern}: ${v.matched}, want ${v.want}`;
  if (v.incomplete) s += " (the journal dropped older entries: some may be missing)";
  if (v.matched > 0) s += `\nmatching seqs: ${v.seqs.join(", ")}`;
  if (v.near_misses && v.near_misses.length === 0) s += "\nthe journal holds no other request";
  if (v.near_misses?.length) {
    s += "\nnearest misses:";
    for (const nm of v.near_misses) {
      const differs = Object.keys(nm.differs).sort().map((f) => {
        const d = nm.differs[f];
        return `${f}: want ${JSON.stringify(d.want)}, got ${d.got === null ? "nothing" : JSON.stringify(d.got)}`;
      });
      s += `\n  seq ${nm.seq} ${nm.method} ${nm.path} (session ${nm.session}): ${differs.join("; ")}`;
    }
  }
  if (v.evicted) s += `\n${v.evicted}`;
  if (v.unreachable) s += `\n${v.unreachable}`;
  return s;
}

module.exports = { startReplymock, connectReplymock, Replymock, ReplymockServer, Session, ReplymockError, VerificationError };
