// A frontend's test against replymock, as a CI job would run it: the
// example page (index.html, page.js) is served from its own origin and
// calls the API across origins; the test drives replymock's admin API
// through a client generated from /__mock/admin/openapi.yaml and checks
// the API through one generated from /__mock/openapi.yaml, both typed by
// openapi-typescript and called with openapi-fetch. It:
//   1. seeds three reviews into its own session and sees them rendered;
//   2. switches a fault on for that session and sees the page show it;
//   3. verifies through the journal what the page sent.
//
// REPLYMOCK_BINARY is the replymock binary (go build -o ... . at the
// repository's root; REPLYMOCK_BIN, its old name, is read too); CHROMIUM the browser (default /usr/bin/chromium);
// REPLYMOCK_ARTIFACTS, if set, a folder for screenshots.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { createServer, type Server } from "node:http";
import { readFile, mkdir } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium, type Browser, type Page } from "playwright-core";
import createClient from "openapi-fetch";
import type { paths as APIPaths } from "../gen/api.js";
import type { paths as AdminPaths, components as Admin } from "../gen/admin.js";

const exampleDir = fileURLToPath(new URL("../../", import.meta.url));
const session = `frontend-${process.pid}`;
const artifacts = process.env.REPLYMOCK_ARTIFACTS;

let mock: ChildProcess;
let mockURL = "";
let pages: Server;
let pageURL = "";
let browser: Browser;
let page: Page;

// startMock runs replymock on a port of the system's choosing and reads
// the address from its "replymock serving" log line.
function startMock(): Promise<string> {
  const bin = process.env.REPLYMOCK_BINARY || process.env.REPLYMOCK_BIN;
  if (!bin) throw new Error("REPLYMOCK_BINARY is not set: build replymock (go build -o /tmp/replymock .) and name it");
  mock = spawn(bin, ["--addr", "127.0.0.1:0"], { stdio: ["ignore", "ignore", "pipe"] });
  return new Promise((resolve, reject) => {
    let log = "";
    const timer = setTimeout(() => reject(new Error(`replymock did not start in 60 s:\n${log}`)), 60_000);
    mock.on("exit", (code) => reject(new Error(`replymock exited with ${code}:\n${log}`)));
    mock.stderr!.setEncoding("utf8").on("data", (chunk: string) => {
      log += chunk;
      const m = /msg="replymock serving" addr=(\S+)/.exec(log);
      if (m) {
        clearTimeout(timer);
        resolve(`http://${m[1]}`);
      }
    });
  });
}

// servePages serves the example page, with openapi-fetch as a browser
// module, on another origin than the API's.
function servePages(): Promise<string> {
  const files: Record<string, [string, string]> = {
    "/": [join(exampleDir, "index.html"), "text/html; charset=utf-8"],
    "/page.js": [join(exampleDir, "page.js"), "text/javascript; charset=utf-8"],
    "/vendor/openapi-fetch.mjs": [join(exampleDir, "node_modules/openapi-fetch/dist/index.mjs"), "text/javascript; charset=utf-8"],
  };
  pages = createServer(async (req, res) => {
    const file = files[new URL(req.url ?? "/", "http://x").pathname];
    if (!file) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { "Content-Type": file[1] }).end(await readFile(file[0]));
  });
  return new Promise((resolve) => pages.listen(0, "127.0.0.1", () => {
    const a = pages.address();
    resolve(`http://127.0.0.1:${typeof a === "object" && a ? a.port : 0}`);
  }));
}

const admin = () => createClient<AdminPaths>({ baseUrl: mockURL });
const api = () => createClient<APIPaths>({ baseUrl: `${mockURL}/api/v1`, headers: { "X-Mock-Session": session } });

// open loads the page for this session and waits until it has shown the
// reviews or an error.
async function open(): Promise<void> {
  await page.goto(`${pageURL}/?api=${encodeURIComponent(mockURL)}&session=${session}`);
  await page.waitForFunction(() => document.body.dataset.loaded === "true" || !document.getElementById("error")!.hidden);
}

async function screenshot(name: string): Promise<void> {
  if (!artifacts) return;
  await mkdir(artifacts, { recursive: true });
  await page.screenshot({ path: join(artifacts, `frontend-${name}.png`), fullPage: true });
}

before(async () => {
  mockURL = await startMock();
  pageURL = await servePages();
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
      "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage"],
  });
  page = await browser.newPage({ viewport: { width: 1024, height: 800 } });
});

after(async () => {
  await browser?.close();
  pages?.close();
  mock?.kill("SIGTERM");
});

const seeded: Admin["schemas"]["SeedReview"][] = [
  { product_valuation: 5, text: "Отличный чайник, кипятит быстро", nm_id: 555000111, answer_text: "Спасибо за отзыв!" },
  { product_valuation: 1, text: "Пришёл с трещиной на крышке", nm_id: 555000111 },
  { product_valuation: 4, text: "Хороший, но шумный", nm_id: 555000222 },
];

test("seeded reviews are what the page shows", async () => {
  const seed = await admin().PUT("/__mock/data", {
    params: { query: { session } },
    body: { mode: "replace", reviews: seeded },
  });
  assert.equal(seed.response.status, 200, JSON.stringify(seed.error));

  // The API, through the generated client, agrees.
  const counts = await api().GET("/feedbacks", { params: { query: { counts_only: 1 } } });
  assert.equal(counts.response.status, 200);
  assert.deepEqual(counts.data?.data, { total: 3, unanswered: 2, answered: 1 });

  await open();
  await screenshot("seeded");
  assert.equal(await page.locator("#error").isHidden(), true, await page.locator("#error").innerText());
  const texts = await page.locator("#reviews li .text").allInnerTexts();
  assert.deepEqual([...texts].sort(), seeded.map((r) => r.text!).sort());
  assert.equal(await page.locator("#counts").innerText(), "Всего 3: с ответом 1, без ответа 2");
  assert.equal(await page.locator("#reviews li .answer").innerText(), "Спасибо за отзыв!");
});

test("a fault switched on for the session is the error the page shows", async () => {
  const added = await admin().POST("/__mock/faults", {
    params: { query: { session } },
    body: { name: "feedbacks down", path: "/feedbacks", error: { status: 503 } },
  });
  assert.equal(added.response.status, 201, JSON.stringify(added.error));
  assert.ok(added.data?.data.id, "the fault has an id");

  await open();
  await screenshot("fault");
  const error = page.locator("#error");
  assert.equal(await error.isVisible(), true);
  assert.equal(await error.getAttribute("data-code"), "service_unavailable");
  assert.match(await error.innerText(), /HTTP 503/);
  assert.equal(await page.locator("#reviews li").count(), 0);

  // Another session is not touched by this one's fault.
  const other = await createClient<APIPaths>({ baseUrl: `${mockURL}/api/v1`, headers: { "X-Mock-Session": `${session}-other` } })
    .GET("/feedbacks", { params: { query: { limit: 1 } } });
  assert.equal(other.response.status, 200);

  const removed = await admin().DELETE("/__mock/faults", { params: { query: { session } } });
  assert.equal(removed.response.status, 200, JSON.stringify(removed.error));
  await open();
  assert.equal(await page.locator("#reviews li").count(), 3);
});

test("the journal verifies what the page sent", async () => {
  // Three loads of the page, two list requests each (the list and the
  // counts); the second load's were answered by the fault.
  const held = await admin().GET("/__mock/verify", {
    params: { query: { session, method: "GET", path: "/api/v1/feedbacks", min: 4 } },
  });
  assert.equal(held.response.status, 200, JSON.stringify(held.error));
  assert.ok((held.data?.data.matched ?? 0) >= 4);

  // The page never writes: a verification that it did fails with a 409
  // that says what was seen.
  const failed = await admin().GET("/__mock/verify", {
    params: { query: { session, method: "PATCH", path: "/api/v1/settings/ai", count: 1 } },
  });
  assert.equal(failed.response.status, 409);
  assert.equal(failed.error?.error.code, "verification_failed");
});
