"use strict";
// Where this machine's replymock binary is: the file REPLYMOCK_BINARY
// names (REPLYMOCK_BIN is its old name, read for one more release), else
// the one in the platform package npm installed beside this package (an
// optional dependency that only this os and cpu take).

const fs = require("node:fs");
const path = require("node:path");

/** The platform packages, by `${process.platform} ${process.arch}`. */
const platforms = {
  "linux x64": "@replymock/linux-x64",
  "linux arm64": "@replymock/linux-arm64",
  "darwin x64": "@replymock/darwin-x64",
  "darwin arm64": "@replymock/darwin-arm64",
  "win32 x64": "@replymock/win32-x64",
};

/**
 * binaryPath is the replymock binary to run; it throws an Error that says
 * what to do when there is none.
 * @returns {string}
 */
function binaryPath() {
  const name = process.env.REPLYMOCK_BINARY ? "REPLYMOCK_BINARY" : "REPLYMOCK_BIN";
  const own = process.env[name];
  if (own) {
    if (!fs.existsSync(own)) {
      throw new Error(`replymock: ${name} names ${own}, which does not exist`);
    }
    return own;
  }
  const key = `${process.platform} ${process.arch}`;
  const pkg = platforms[key];
  if (!pkg) {
    throw new Error(`replymock: no binary is published for ${key} (there are for ${Object.keys(platforms).join(", ")}); ` +
      "build one from replymock's repository (go build -o replymock .) and set REPLYMOCK_BINARY to its path");
  }
  const want = require("../package.json").version;
  let manifest;
  try {
    manifest = require.resolve(`${pkg}/package.json`);
  } catch {
    throw new Error(`replymock: the binary for ${key} is in ${pkg}@${want}, which is not installed. ` +
      `Install it: npm install -D ${pkg}@${want} (from a clone of replymock, the tarball npm pack makes of ` +
      `mock/npm/dist/${pkg.split("/")[1]}: see mock/npm/README.md). Or set REPLYMOCK_BINARY to a replymock binary.`);
  }
  const got = require(manifest).version;
  if (got !== want) {
    throw new Error(`replymock: replymock ${want} found ${pkg} ${got}; both must be the same version: npm install -D replymock@${want}`);
  }
  return path.join(path.dirname(manifest), "bin", process.platform === "win32" ? "replymock.exe" : "replymock");
}

module.exports = { binaryPath, platforms };
