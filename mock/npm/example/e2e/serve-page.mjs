// Serves the example page (mock/examples/frontend, or PAGE_DIR) and
// openapi-fetch as a browser module on 127.0.0.1:PORT, for Playwright's
// webServer: in a frontend project, its own dev server does this.
import { createServer } from "node:http";
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { join } from "node:path";

const port = Number(process.argv[2] ?? 4173);
const pageDir = process.env.PAGE_DIR ?? fileURLToPath(new URL("../../../examples/frontend/", import.meta.url));
const files = {
  "/": [join(pageDir, "index.html"), "text/html; charset=utf-8"],
  "/page.js": [join(pageDir, "page.js"), "text/javascript; charset=utf-8"],
  "/vendor/openapi-fetch.mjs": [fileURLToPath(import.meta.resolve("openapi-fetch")), "text/javascript; charset=utf-8"],
};
createServer(async (req, res) => {
  const file = files[new URL(req.url ?? "/", "http://x").pathname];
  if (!file) return res.writeHead(404).end();
  try {
    res.writeHead(200, { "Content-Type": file[1] }).end(await readFile(file[0]));
  } catch (err) {
    res.writeHead(500).end(String(err));
  }
}).listen(port, "127.0.0.1");
