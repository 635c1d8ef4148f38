// Calls every operation of both OpenAPI documents through the clients
// @hey-api/openapi-ts generated from them, against the replymock binary
// named by REPLYMOCK_BINARY, started here on 127.0.0.1. Each call's
// status is checked; tsc --strict has checked the calls' types first.
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";

import * as api from "./gen/api/index.js";
import * as admin from "./gen/admin/index.js";
import { client as apiClient } from "./gen/api/client.gen.js";
import { client as adminClient } from "./gen/admin/client.gen.js";

const binary = process.env.REPLYMOCK_BINARY;
if (!binary) throw new Error("REPLYMOCK_BINARY must name the replymock binary");

const server = spawn(binary, ["--addr", "127.0.0.1:0", "--log-format", "text"], { stdio: ["ignore", "ignore", "pipe"] });
const addr = await new Promise<string>((resolve, reject) => {
  const timer = setTimeout(() => reject(new Error("replymock did not start in 10 s")), 10_000);
  createInterface({ input: server.stderr! }).on("line", (line) => {
    const m = /msg="replymock serving" addr=(\S+)/.exec(line);
    if (m) {
      clearTimeout(timer);
      resolve(m[1]!);
    }
  });
  server.on("exit", (code) => reject(new Error(`replymock exited with ${code}`)));
});
const base = `http://${addr}`;
apiClient.setConfig({ baseUrl: `${base}/api/v1` });
adminClient.setConfig({ baseUrl: base });

// The documents' rules reach the types: each line below must not compile.
// @ts-expect-error: a fault needs latency, error, drop or truncate
export const idle: admin.Fault = { method: "GET", times: 1 };
// @ts-expect-error: PUT /__mock/faults needs a name
export const unnamed: admin.NamedFault = { latency: { fixed: "1s" } };

const session = "heyapi";
const failures: string[] = [];
let calls = 0;

// check awaits one call and compares its status with want.
async function check(name: string, want: number, call: Promise<{ response: Response }>): Promise<void> {
  calls++;
  try {
    const { response } = await call;
    if (response.status !== want) {
      failures.push(`${name}: status ${response.status}, want ${want}: ${await response.clone().text().catch(() => "")}`);
    }
  } catch (err) {
    failures.push(`${name}: ${err}`);
  }
}

// Error bodies come back as `error`, not thrown: the status says which.
const headers = { "X-Mock-Session": session };
try {
  // The API.
  await check("getSettings", 200, api.getSettings({ headers }));
  await check("headSettings", 200, api.headSettings({ headers }));
  await check("patchSettings", 200, api.patchSettings({ headers, body: { feedback: [{ rating: 5, reply_mode: "auto", tone: "friendly" }] } }));
  await check("listFeedbacks", 200, api.listFeedbacks({ headers, query: { limit: 5, answered: 0, date_from: "2026-01-01", date_to: "2026-12-31" } }));
  await check("listFeedbacks (counts_only)", 200, api.listFeedbacks({ headers, query: { counts_only: 1 } }));
  await check("headFeedbacks", 200, api.headFeedbacks({ headers, query: { rating: 5 } }));
  await check("listFeedbacks (limit 500)", 400, api.listFeedbacks({ headers, query: { limit: 500 } }));

  // The admin API: the server and its documents.
  await check("getHealth", 200, admin.getHealth());
  await check("getMetrics", 200, admin.getMetrics());
  await check("getApiDocumentYaml", 200, admin.getApiDocumentYaml({ query: { paths: "absolute" } }));
  await check("getApiDocumentJson", 200, admin.getApiDocumentJson());
  await check("getAdminDocumentYaml", 200, admin.getAdminDocumentYaml());
  await check("getAdminDocumentJson", 200, admin.getAdminDocumentJson());

  // Scenarios, faults, overrides.
  await check("listScenarios", 200, admin.listScenarios({ query: { session } }));
  await check("switchScenario", 200, admin.switchScenario({ query: { session }, body: { name: "default" } }));
  const added = await admin.addFault({ query: { session }, body: { method: "GET", path: "/feedbacks", times: 1, error: { status: 503 } } });
  calls++;
  if (added.response.status !== 201 || !added.data) failures.push(`addFault: status ${added.response.status}, want 201`);
  await check("listFeedbacks (the fault)", 503, api.listFeedbacks({ headers }));
  await check("replaceFault", 200, admin.replaceFault({ query: { session }, body: { name: "slow", latency: { fixed: "1ms" } } }));
  await check("listFaults", 200, admin.listFaults({ query: { session } }));
  await check("removeFault", 200, admin.removeFault({ path: { id: added.data?.data.id ?? "none" }, query: { session } }));
  await check("removeFaults", 200, admin.removeFaults({ query: { session } }));
  await check("setOverrides", 200, admin.setOverrides({ query: { session }, body: { strict: true } }));
  await check("getOverrides", 200, admin.getOverrides({ query: { session } }));

  // The journal.
  await check("listRequests", 200, admin.listRequests({ query: { session, path: "/api/v1/feedbacks", wait: "1s" } }));
  await check("verify", 200, admin.verify({ query: { session, method: "PATCH", path: "/api/v1/settings/ai", count: 1 } }));
  await check("verify (fails)", 409, admin.verify({ query: { session, method: "DELETE", count: 1 } }));
  await check("clearRequests", 200, admin.clearRequests({ query: { session } }));

  // Data: settings, seeds, the clock, snapshots.
  await check("viewSettings", 200, admin.viewSettings({ query: { session } }));
  await check("seedReviews", 200, admin.seedReviews({
    query: { session },
    body: {
      mode: "replace",
      reviews: [
        { product_valuation: 5, text: "Отличный плед", valuation_tags: ["цена"], photos: [{ fullSize: "https://example.test/1.jpg", miniSize: "https://example.test/1m.jpg" }] },
        { product_valuation: 1, text: "Пришёл с дыркой", video: { previewImage: "https://example.test/p.jpg", link: "https://example.test/v.m3u8", durationSec: 25 } },
      ],
    },
  }));
  await check("getData", 200, admin.getData({ query: { session } }));
  const snap = await admin.getSnapshot({ query: { session, format: "json" } });
  calls++;
  if (snap.response.status !== 200 || !snap.data) failures.push(`getSnapshot: status ${snap.response.status}, want 200`);
  await check("getSnapshot (YAML)", 200, admin.getSnapshot({ query: { session } }));
  if (snap.data && !(snap.data instanceof Blob)) {
    await check("restoreSnapshot", 200, admin.restoreSnapshot({ query: { session: `${session}-copy` }, body: snap.data }));
  } else {
    failures.push("getSnapshot with format=json did not answer a Snapshot");
  }
  await check("forgetSeeded", 200, admin.forgetSeeded({ query: { session } }));
  await check("getClock", 200, admin.getClock({ query: { session, scenario: "demo-frozen" } }));
  await check("advanceClock", 200, admin.advanceClock({ query: { session, scenario: "demo-frozen" }, body: { advance: "1h" } }));
  await check("reset", 200, admin.reset({ query: { session } }));

  // The panel and the media.
  await check("panelRedirect", 301, admin.panelRedirect({ redirect: "manual" }));
  await check("getPanel", 200, admin.getPanel());
  await check("getPanelFile", 200, admin.getPanelFile({ path: { file: "app.js" } }));
  await check("getPhoto", 200, admin.getPhoto({ path: { key: "wjxpUDr09yYvNnS4QqfH", n: 1, size: "fs.jpg" } }));
  await check("getVideoPreview", 200, admin.getVideoPreview({ path: { key: "wjxpUDr09yYvNnS4QqfH" } }));
  await check("getVideoFile", 200, admin.getVideoFile({ path: { key: "wjxpUDr09yYvNnS4QqfH", duration: "25s", file: "index.m3u8" } }));
} finally {
  server.kill();
}

if (failures.length > 0) {
  console.error(`${failures.length} of ${calls} calls failed:\n  ${failures.join("\n  ")}`);
  process.exit(1);
}
console.log(`hey-api clients: ${calls} calls, every operation of both documents, each with the status wanted`);
