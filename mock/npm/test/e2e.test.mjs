// replymock's npm packages, for real: built for every platform (go run
// ./mock/npm), packed with npm pack, and installed into a fresh project
// (a copy of mock/npm/example) whose other packages, the test runners,
// are the only ones taken from the registry. Then: npx replymock, the
// types regenerated from the OpenAPI documents, tsc, node:test through
// require(), Vitest in threads, Jest, Playwright with two workers in the
// system's Chromium, and a Vitest run killed mid-test, whose server
// must not outlive it.
//
//	node --test mock/npm/test/     (needs go, npm and /usr/bin/chromium or CHROMIUM)
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const repo = fileURLToPath(new URL("../../../", import.meta.url));
const example = join(repo, "mock/npm/example");
const work = mkdtempSync(join(tmpdir(), "replymock-npm-"));
const dist = join(work, "dist");
const packs = join(work, "packs");
const project = join(work, "project");
const version = JSON.parse(readFileSync(join(repo, "mock/npm/replymock/package.json"), "utf8")).version;
const packed = {}; // folder in dist → npm pack's account of it

// sh runs a command to its end and returns its output; a failure throws
// with the output.
function sh(cmd, args, { cwd = project, env = {}, timeout = 600_000 } = {}) {
  const started = Date.now();
  // Without NODE_TEST_CONTEXT, which node --test sets for this file: a
  // node --test run below it would report to this one, not to its output.
  const { NODE_TEST_CONTEXT, ...inherited } = process.env;
  const r = spawnSync(cmd, args, { cwd, env: { ...inherited, NO_COLOR: "1", ...env }, encoding: "utf8", timeout, maxBuffer: 64 << 20 });
  const out = `${r.stdout ?? ""}${r.stderr ?? ""}`;
  if (r.status !== 0) {
    throw new Error(`${cmd} ${args.join(" ")} (in ${cwd}) failed: ${r.error ?? `exit ${r.status ?? r.signal}`}\n${out}`);
  }
  return { stdout: r.stdout, stderr: r.stderr, out, ms: Date.now() - started };
}

function freePort() {
  return new Promise((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

before(() => {
  const built = sh("go", ["run", "./mock/npm", "-out", dist], { cwd: repo, timeout: 1_200_000 });
  console.log(built.out.trim(), `\n(all built in ${built.ms} ms)`);
  mkdirSync(packs);
  for (const dir of readdirSync(dist)) {
    const [info] = JSON.parse(sh("npm", ["pack", "--json", "--pack-destination", packs], { cwd: join(dist, dir) }).stdout);
    packed[dir] = info;
    console.log(`npm pack ${info.name}: ${info.filename}, ${(info.size / 1e6).toFixed(2)} MB packed, ${(info.unpackedSize / 1e6).toFixed(2)} MB unpacked`);
  }
  cpSync(example, project, { recursive: true, filter: (src) => !/node_modules|test-results|playwright-report/.test(src) });
  const pkg = JSON.parse(readFileSync(join(project, "package.json"), "utf8"));
  pkg.devDependencies.replymock = `file:${join(packs, packed.replymock.filename)}`;
  // replymock names its platform packages at its version; until they are
  // published, these tarballs stand in for them.
  pkg.overrides = {};
  for (const [dir, info] of Object.entries(packed)) {
    if (dir !== "replymock") pkg.overrides[info.name] = `file:${join(packs, info.filename)}`;
  }
  writeFileSync(join(project, "package.json"), JSON.stringify(pkg, null, 2));
  const install = sh("npm", ["install", "--no-audit", "--no-fund", "--loglevel=http"]);
  console.log(`npm install: ${install.ms} ms`);
  // No replymock package came from the registry: asked for, a platform
  // package not published yet would fail the install or be skipped.
  // (npm's log names each address it took a package from: "npm http
  // fetch GET 200 ADDRESS" and "npm http cache NAME@ADDRESS".)
  const addresses = install.out.split("\n").flatMap((l) => /^npm http (fetch|cache) .*?(https?:\/\/\S+)/.exec(l)?.[2] ?? []);
  assert.ok(addresses.some((a) => /\/vitest\b/.test(a)), `npm's log names no address:\n${install.out}`);
  assert.deepEqual(addresses.filter((a) => /replymock/i.test(a)), [], "npm asked the registry for replymock's packages");
});

after(() => {
  if (!process.env.REPLYMOCK_KEEP_NPM_TEST) rmSync(work, { recursive: true, force: true });
});

test("every package has the version; the platform packages their os and cpu; no install script", () => {
  const wrapper = packed.replymock;
  assert.equal(wrapper.version, version);
  const files = wrapper.files.map((f) => f.path).sort();
  assert.deepEqual(files, ["README.md", "bin/replymock.js", "index.cjs", "index.d.cts", "index.d.mts", "index.mjs",
    "lib/binary.cjs", "package.json", "types/admin.d.ts", "types/api.d.ts"]);
  for (const [dir, info] of Object.entries(packed)) {
    const pkg = JSON.parse(readFileSync(join(dist, dir, "package.json"), "utf8"));
    assert.equal(pkg.version, version, dir);
    for (const hook of ["preinstall", "install", "postinstall"]) assert.equal(pkg.scripts?.[hook], undefined, `${dir}: ${hook}`);
    if (dir === "replymock") continue;
    assert.deepEqual([pkg.os, pkg.cpu], [[dir.split("-")[0]], [dir.split("-")[1]]], dir);
    assert.deepEqual(info.files.map((f) => f.path).sort(), ["README.md", dir.startsWith("win32") ? "bin/replymock.exe" : "bin/replymock", "package.json"]);
    assert.ok(info.size < 10e6, `${info.name} is ${info.size} bytes packed`);
  }
});

test("npm installs the binary of this platform only", () => {
  const here = `${process.platform}-${process.arch}`;
  assert.deepEqual(readdirSync(join(project, "node_modules/@replymock")), [here]);
  const bin = join(project, "node_modules/@replymock", here, "bin/replymock");
  assert.ok(statSync(bin).mode & 0o100, `${bin} is executable`);
});

test("from a clone, as mock/npm/README.md says: both tarballs installed work; the small one alone says what to install", () => {
  const here = `${process.platform}-${process.arch}`;
  const both = join(work, "clone-both");
  const alone = join(work, "clone-alone");
  for (const dir of [both, alone]) {
    mkdirSync(dir);
    writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "from-a-clone", version: "1.0.0", private: true }));
  }
  const tarball = (dir) => join(packs, packed[dir].filename);
  sh("npm", ["install", "--no-audit", "--no-fund", "-D", tarball("replymock"), tarball(here)], { cwd: both });
  assert.equal(sh("npx", ["--no-install", "replymock", "--version"], { cwd: both }).stdout, `replymock ${version}\n`);
  // The small package alone, its optional platform package left out.
  sh("npm", ["install", "--no-audit", "--no-fund", "--omit=optional", "-D", tarball("replymock")], { cwd: alone });
  const r = spawnSync("npx", ["--no-install", "replymock", "--version"], { cwd: alone, encoding: "utf8" });
  assert.notEqual(r.status, 0, "npx replymock without its platform package");
  const pkg = packed[here].name;
  assert.match(r.stderr, new RegExp(`npm install -D ${pkg}@${version.replaceAll(".", "\\.")}`), r.stderr);
  assert.match(r.stderr, new RegExp(`mock/npm/dist/${here}`), r.stderr);
  assert.doesNotMatch(r.stderr, /node_modules|package-lock/, "advice that cannot help");
  // The old name of the binary's variable still works.
  const bin = join(both, "node_modules/@replymock", here, "bin/replymock");
  assert.equal(sh("npx", ["--no-install", "replymock", "--version"], { cwd: alone, env: { REPLYMOCK_BIN: bin } }).stdout, `replymock ${version}\n`);
});

test("npx replymock --version, and a package.json script, print the package's version", () => {
  const timings = [];
  let out = "";
  for (let i = 0; i < 3; i++) {
    const r = sh("npx", ["--no-install", "replymock", "--version"]);
    out = r.stdout;
    timings.push(r.ms);
  }
  assert.equal(out, `replymock ${version}\n`);
  assert.equal(sh("npm", ["run", "--silent", "mock", "--", "--version"]).stdout, `replymock ${version}\n`, "a package.json script");
  const direct = sh("node", ["node_modules/replymock/bin/replymock.js", "--version"]);
  const binary = sh(join(project, "node_modules/@replymock", `${process.platform}-${process.arch}`, "bin/replymock"), ["--version"]);
  const started = sh("node", ["-e", `const t = Date.now(); require("replymock").startReplymock()
    .then(async (m) => { console.log(Date.now() - t); await m.stop(); })`]).stdout.trim();
  console.log(`npx replymock --version: ${timings.join(", ")} ms; the bin script alone: ${direct.ms} ms; the binary: ${binary.ms} ms; ` +
    `startReplymock() until healthy: ${started} ms`);
});

for (const signal of ["SIGTERM", "SIGINT"]) {
  test(`npx replymock serves: health answers, and ${signal} to the bin script stops the server cleanly`, async (t) => {
    const child = spawn(join(project, "node_modules/.bin/replymock"), ["--addr", "127.0.0.1:0", "--log-format", "json", "--scenario", "flaky"],
      { cwd: project, stdio: ["ignore", "ignore", "pipe"] });
    const exited = new Promise((resolve) => child.on("exit", (code, sig) => resolve({ code, signal: sig })));
    t.after(() => child.kill("SIGKILL")); // if the test failed before it stopped the server
    let log = "";
    const addr = await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no serving line in 60 s:\n${log}`)), 60_000);
      child.stderr.setEncoding("utf8").on("data", (s) => {
        log += s;
        const m = /"msg":"replymock serving".*?"addr":"([^"]+)"/.exec(log);
        if (m) {
          clearTimeout(timer);
          resolve(m[1]);
        }
      });
    });
    const health = await (await fetch(`http://${addr}/__mock/health`)).json();
    assert.deepEqual([health.data.status, health.data.scenario, health.data.version], ["ok", "flaky", version]);
    child.kill(signal); // to the bin script alone (no terminal here), which passes it on
    assert.deepEqual(await exited, { code: 0, signal: null }, log);
    assert.match(log, /replymock shutting down/);
    await assert.rejects(fetch(`http://${addr}/__mock/health`), "the server's port still answers");
  });
}

test("npx replymock killed with SIGKILL: its server goes too", async (t) => {
  const wrapper = spawn("node", [join(project, "node_modules/replymock/bin/replymock.js"), "--addr", "127.0.0.1:0", "--log-format", "json"],
    { cwd: project, stdio: ["ignore", "ignore", "pipe"] });
  let server;
  t.after(() => {
    wrapper.kill("SIGKILL");
    if (server && alive(server.pid)) process.kill(server.pid, "SIGKILL"); // the test failed: leave nothing behind
  });
  let log = "";
  const addr = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no serving line in 60 s:\n${log}`)), 60_000);
    wrapper.stderr.setEncoding("utf8").on("data", (s) => {
      log += s;
      const m = /"msg":"replymock serving".*?"addr":"([^"]+)"/.exec(log);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
  });
  server = childrenOf(wrapper.pid).find((p) => p.comm === "replymock");
  assert.ok(server, `no replymock process among the bin script's children: ${JSON.stringify(childrenOf(wrapper.pid))}`);
  wrapper.kill("SIGKILL");
  let gone = false;
  for (let i = 0; i < 100 && !gone; i++) {
    await new Promise((r) => setTimeout(r, 100));
    gone = !alive(server.pid);
  }
  assert.ok(gone, `replymock (pid ${server.pid}) still runs 10 s after its bin script was killed`);
  await assert.rejects(fetch(`http://${addr}/__mock/health`), "the server's port still answers");
});

test("the committed types are what openapi-typescript makes of the OpenAPI documents", () => {
  for (const [doc, types] of [["mock/openapi.yaml", "api.d.ts"], ["mock/admin-openapi.yaml", "admin.d.ts"]]) {
    const out = join(work, types);
    sh("npx", ["--no-install", "openapi-typescript", join(repo, doc), "-o", out]);
    const want = readFileSync(out, "utf8");
    const have = readFileSync(join(repo, "mock/npm/replymock/types", types), "utf8");
    assert.ok(want === have, `mock/npm/replymock/types/${types} is not what ${doc} generates: regenerate it with ` +
      `(cd mock/npm/example && npm install && npx openapi-typescript ../../../${doc} -o ../replymock/types/${types})`);
  }
});

test("tsc: the examples compile, and wrong fields do not", () => {
  sh("npx", ["--no-install", "tsc", "-p", "."]);
});

test("node:test, with require()", () => {
  const r = sh("node", ["--test", "node/"]);
  assert.match(r.stdout, /# fail 0/);
  console.log(`node:test suite: ${r.ms} ms`);
});

test("Vitest, test files in worker threads", () => {
  const r = sh("npx", ["--no-install", "vitest", "run", "--reporter=verbose"]);
  assert.match(r.stdout, /Test Files {2}2 passed \(2\)/);
  assert.match(r.stdout, /Tests {2}8 passed \(8\)/);
  console.log(`vitest run: ${r.ms} ms`);
});

test("Jest, workers in processes of their own", () => {
  const r = sh("npx", ["--no-install", "jest", "--maxWorkers=2"]);
  assert.match(r.out, /Tests:\s+2 passed, 2 total/);
  console.log(`jest: ${r.ms} ms`);
});

test("Playwright, two workers, the system's Chromium", async () => {
  const r = sh("npx", ["--no-install", "playwright", "test", "--reporter=list"], {
    env: { PAGE_PORT: String(await freePort()), PAGE_DIR: join(repo, "mock/examples/frontend") },
  });
  assert.match(r.stdout, /Running 2 tests using 2 workers/);
  assert.match(r.stdout, /2 passed/);
  console.log(`playwright test: ${r.ms} ms`);
});

test("a test process killed leaves no server behind", async () => {
  const note = join(work, "killed-note");
  const vitest = spawn(join(project, "node_modules/.bin/vitest"), ["run", "--config", "killed/vitest.config.ts"],
    { cwd: project, stdio: "ignore", env: { ...process.env, REPLYMOCK_KILL_NOTE: note } });
  let server;
  try {
    for (let i = 0; i < 600 && !existsSync(note); i++) await new Promise((r) => setTimeout(r, 100));
    const url = readFileSync(note, "utf8");
    server = childrenOf(vitest.pid).find((p) => p.comm === "replymock");
    assert.ok(server, `no replymock process among vitest's children: ${JSON.stringify(childrenOf(vitest.pid))}`);
    assert.equal((await fetch(`${url}/__mock/health`)).status, 200);
    vitest.kill("SIGKILL");
    let gone = false;
    for (let i = 0; i < 100 && !gone; i++) {
      await new Promise((r) => setTimeout(r, 100));
      gone = !alive(server.pid);
    }
    assert.ok(gone, `replymock (pid ${server.pid}) still runs 10 s after the test process was killed`);
    await assert.rejects(fetch(`${url}/__mock/health`), "the server's port still answers");
  } finally {
    vitest.kill("SIGKILL");
    if (server && alive(server.pid)) process.kill(server.pid, "SIGKILL"); // the test failed: leave nothing behind
  }
});

// childrenOf lists the processes whose parent is pid (from /proc).
function childrenOf(pid) {
  const out = [];
  for (const p of readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    try {
      const stat = readFileSync(`/proc/${p}/stat`, "utf8");
      const comm = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (ppid === pid) out.push({ pid: Number(p), comm });
    } catch { /* gone meanwhile */ }
  }
  return out;
}

// alive says whether pid runs (a zombie, exited but not reaped, does not).
function alive(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return false;
  }
}
