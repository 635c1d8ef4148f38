// Drives replymock's MCP server with the official TypeScript SDK's client
// over stdio and streamable HTTP: lists the tools, calls each, checks
// results and errors, and that the admin API's guard holds.
import { spawn } from "node:child_process";
import { createServer } from "node:net";
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const bin = process.env.REPLYMOCK_BINARY;
assert.ok(bin, "REPLYMOCK_BINARY names the binary");

// Each tool once, in an order that leaves each something to show.
const calls = [
  ["count_reviews", {}, '"by_rating":['],
  ["list_reviews", { rating: 1, limit: 2 }, '"product_valuation":1'],
  ["get_settings", {}, '"feedback":['],
  ["patch_settings", { settings: { feedback: [{ rating: 1, tone: "dry" }] } }, '"tone":"dry"'],
  ["seed_reviews", { reviews: [{ product_valuation: 1 }] }, '"mode":"replace"'],
  ["append_reviews", { reviews: [{ product_valuation: 2 }] }, '"mode":"append"'],
  ["clear_reviews", {}, '"removed":'],
  ["add_fault", { error: { status: 503 }, name: "flaky", times: 1 }, '"name":"flaky"'],
  ["list_faults", {}, '"name":"flaky"'],
  ["list_requests", { path: "/api/v1/feedbacks" }, '"/api/v1/feedbacks"'],
  ["verify", { path: "/api/v1/feedbacks", min: 1 }, '"matched":'],
  ["wait_request", { path: "/api/v1/feedbacks", wait: "1s" }, '"/api/v1/feedbacks"'],
  ["remove_fault", {}, '"removed":1'],
  ["list_scenarios", {}, '"demo"'],
  ["switch_scenario", { name: "demo" }, '"demo"'],
  ["move_clock", { advance: "2h" }, '"scenario":"demo"'],
  ["reset_session", {}, '"reset":"mcp-'],
  ["probe", { target: "TARGET", rate: 1000 }, '"status":"holds"'],
];

const errors = [
  ["list_reviews", { rating: 9 }, "rating"],
  ["list_reviews", { date_from: "2026-02-30" }, "(field date_from)"],
  ["add_fault", { error: { status: 999 } }, "(field error.status)"],
  ["patch_settings", { settings: { feedback: [{ rating: 1, reply_mode: "sometimes" }] } }, "reply_mode"],
  ["switch_scenario", { name: "no-such" }, "no-such"],
];

async function connect(transport) {
  const client = new Client({ name: "ci", version: "1" });
  await client.connect(transport);
  return client;
}

// exercise calls every tool; probe checks target, another replymock.
async function exercise(client, how, target) {
  const info = client.getServerVersion();
  assert.equal(info.name, "replymock", how);
  assert.match(client.getInstructions() ?? "", /session/, how);
  const { tools } = await client.listTools();
  assert.deepEqual(tools.map((t) => t.name).sort(), calls.map((c) => c[0]).sort(), `${how}: the tools`);
  for (const t of tools) assert.ok(t.outputSchema, `${how}: ${t.name} has an output schema`);
  for (const [name, args, want] of calls) {
    const res = await client.callTool({ name, arguments: name === "probe" ? { ...args, target } : args });
    const got = JSON.stringify(res.structuredContent);
    assert.ok(!res.isError && got.includes(want) && (name === "probe" || got.includes('"session":"mcp-')),
      `${how}: ${name} answered ${res.content?.[0]?.text?.slice(0, 300)}; want ${want}`);
  }
  for (const [name, args, want] of errors) {
    const res = await client.callTool({ name, arguments: args });
    assert.ok(res.isError && res.content[0].text.includes(want), `${how}: ${name} ${JSON.stringify(args)}: ${res.content[0].text}`);
  }
  const { contents } = await client.readResource({ uri: "replymock://contract-assumptions.md" });
  assert.match(contents[0].text, /Contract assumptions/, how);
  const { prompts } = await client.listPrompts();
  assert.equal(prompts.length, 3, how);
  console.log(`${how}: ${tools.length} tools called, ${errors.length} errors, resources and prompts: ok`);
}

function freePort() {
  return new Promise((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => { const { port } = s.address(); s.close(() => resolve(port)); });
  });
}

// serve starts the binary on a free loopback port and waits for health.
async function serve(...flags) {
  const port = await freePort();
  const child = spawn(bin, ["--addr", `127.0.0.1:${port}`, "--log-level", "warn", ...flags], { stdio: ["ignore", "inherit", "inherit"] });
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 100; i++) {
    try {
      if ((await fetch(`${base}/__mock/health`)).ok) return { base, child };
    } catch {}
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill();
  throw new Error(`replymock ${flags.join(" ")} did not start`);
}

const http = (base, headers = {}) =>
  new StreamableHTTPClientTransport(new URL(`${base}/__mock/mcp`), { requestInit: { headers } });

async function refused(transport, want, what) {
  await assert.rejects(connect(transport), (err) => String(err).includes(want) || String(err.code) === want, what);
  console.log(`${what}: refused (${want})`);
}

const children = [];
try {
  const guarded = await serve("--admin-token", "s3cret");
  children.push(guarded.child);
  const target = `${guarded.base}/api/v1`;
  const stdio = await connect(new StdioClientTransport({ command: bin, args: ["mcp"], stderr: "ignore" }));
  await exercise(stdio, "stdio", target);
  await stdio.close();

  const client = await connect(http(guarded.base, { Authorization: "Bearer s3cret" }));
  await exercise(client, "streamable HTTP", target);
  await client.close();
  await refused(http(guarded.base), "401", "no admin token");
  await refused(http(guarded.base, { Authorization: "Bearer s3cret", Origin: "https://evil.test" }), "403", "a foreign Origin");

  const readOnly = await serve("--read-only");
  children.push(readOnly.child);
  const ro = await connect(http(readOnly.base));
  const { tools } = await ro.listTools();
  for (const t of tools) assert.ok(t.annotations?.readOnlyHint, `read-only server offers ${t.name}`);
  assert.ok(!tools.some((t) => t.name === "add_fault"), "read-only server offers add_fault");
  const res = await ro.callTool({ name: "add_fault", arguments: { drop: true } }).catch((err) => ({ isError: true, err }));
  assert.ok(res.isError, "read-only server added a fault");
  await ro.close();
  console.log(`read-only: ${tools.length} tools, all reading; add_fault refused`);
} finally {
  for (const c of children) c.kill();
}
