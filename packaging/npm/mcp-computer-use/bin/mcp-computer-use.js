#!/usr/bin/env node
// Starts this platform's mcp-computer-use binary, which an optional dependency carries
// (mcp-computer-use-<platform>-<arch>), with the same arguments. Standard input and output
// pass through untouched: they carry MCP over stdio. Exit code and signals are the binary's.
"use strict";

const { spawn } = require("node:child_process");
const path = require("node:path");

const PACKAGES = {
  "linux-x64": "mcp-computer-use-linux-x64",
  "linux-arm64": "mcp-computer-use-linux-arm64",
  "win32-x64": "mcp-computer-use-win32-x64",
  "darwin-arm64": "mcp-computer-use-darwin-arm64",
  "darwin-x64": "mcp-computer-use-darwin-x64",
};

function binaryPath() {
  if (process.env.MCP_COMPUTER_USE_BINARY) {
    return process.env.MCP_COMPUTER_USE_BINARY;
  }
  const key = `${process.platform}-${process.arch}`;
  const pkg = PACKAGES[key];
  if (!pkg) {
    fail(`no mcp-computer-use build for ${key}; builds exist for ${Object.keys(PACKAGES).join(", ")}`);
  }
  const exe = process.platform === "win32" ? "mcp-computer-use.exe" : "mcp-computer-use";
  try {
    return path.join(path.dirname(require.resolve(`${pkg}/package.json`)), "bin", exe);
  } catch {
    fail(`the package ${pkg} is not installed (npm skipped the optional dependency?); ` +
      `reinstall without --omit=optional, or set MCP_COMPUTER_USE_BINARY to the binary`);
  }
}

function fail(message) {
  // The binary's own error shape, so a client shows one kind of error either way.
  process.stderr.write(JSON.stringify({
    code: "CONFIG_INVALID",
    message,
    retryable: false,
    suggestion: "Install from a release archive instead: see the README's install section.",
  }) + "\n");
  process.exit(2);
}

const child = spawn(binaryPath(), process.argv.slice(2), { stdio: "inherit", windowsHide: true });
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) {
  process.on(signal, () => child.kill(signal));
}
child.on("error", (error) => fail(`cannot start the binary: ${error.message}`));
child.on("exit", (code, signal) => {
  if (signal) {
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
  } else {
    process.exit(code ?? 1);
  }
});
