#!/usr/bin/env node
"use strict";
// npx replymock [flags]: runs this machine's replymock binary with the
// same arguments, standard streams and exit code.

const { spawn } = require("node:child_process");

let bin;
try {
  bin = require("../lib/binary.cjs").binaryPath();
} catch (err) {
  console.error(err.message);
  process.exit(1);
}
// Standard input is a pipe this process holds open: if it is killed
// (SIGKILL), the pipe closes and the binary shuts down with it
// (--exit-on-stdin-close), rather than hold its port. No subcommand
// reads standard input.
const child = spawn(bin, process.argv.slice(2), {
  stdio: ["pipe", "inherit", "inherit"],
  env: { ...process.env, REPLYMOCK_EXIT_ON_STDIN_CLOSE: "1" },
});
child.stdin.on("error", () => {}); // EPIPE once the binary is gone: nothing to tell
child.on("error", (err) => {
  console.error(`replymock: could not run ${bin}: ${err.message}`);
  process.exit(1);
});
// A terminal's Ctrl-C reaches the binary itself (it is in the same
// process group); passing it on too would be a second interrupt, which
// stops the binary without draining or saving --state-dir. Signals sent
// to this process alone are passed on.
const forward = (signal) => {
  if (child.exitCode === null && child.signalCode === null) child.kill(signal);
};
process.on("SIGINT", () => {
  if (!process.stdin.isTTY) forward("SIGINT");
});
process.on("SIGTERM", () => forward("SIGTERM"));
process.on("SIGHUP", () => forward("SIGHUP"));
child.on("exit", (code, signal) => {
  if (signal) {
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
    return;
  }
  process.exit(code ?? 1);
});
