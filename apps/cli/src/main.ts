#!/usr/bin/env node
import { homedir } from "node:os";
import { setTimeout as sleep } from "node:timers/promises";
import { runCli } from "./run-cli.js";

// `baton instances | head` closes the pipe early: stop quietly instead of dumping an EPIPE stack.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "EPIPE") process.exit(process.exitCode ?? 0);
    throw error;
  });
}

// Ctrl-C: leave no half-drawn progress line behind; 130 is the shell's code for SIGINT.
process.on("SIGINT", () => {
  if (process.stderr.isTTY) process.stderr.write("\r\x1b[K");
  process.exit(130);
});

const exitCode = await runCli(process.argv.slice(2), {
  stdout: {
    write: (text) => process.stdout.write(text),
    get isTTY() {
      return Boolean(process.stdout.isTTY);
    },
    get columns() {
      return process.stdout.columns;
    },
  },
  stderr: {
    write: (text) => process.stderr.write(text),
    get isTTY() {
      return Boolean(process.stderr.isTTY);
    },
    get columns() {
      return process.stderr.columns;
    },
  },
  env: process.env,
  cwd: process.cwd(),
  homedir: homedir(),
  now: () => Date.now(),
  sleep: (ms) => sleep(ms),
});
// exitCode, not exit(): let stdout drain when it is a pipe.
process.exitCode = exitCode;
