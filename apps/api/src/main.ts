#!/usr/bin/env node
import { readFileSync } from "node:fs";
import { Command } from "commander";
import { forgetFlagVariables, readFlagsFromEnvironment } from "@baton/flag-env";
import { createLogger, type Logger } from "@baton/log";
import { registerTokensCommand } from "./commands/tokens.js";
import type { ServerConfig } from "./config.js";
import { configFrom, SERVER_FLAGS } from "./flags.js";
import { readDbConfig, withReadDbFlags } from "./read-db-flags.js";
import { redactUrl } from "./format.js";
import { errorText } from "./loggable-error.js";
import type { startServer } from "./server.js";
import { startTracing, stopTracing } from "./tracing/index.js";

// The process entry: the flags (flags.ts), the checks that need no database, then the server
// (server.ts) until SIGTERM or SIGINT. What only serving needs is imported when it serves:
// `--version` and `--help` load the flag table and nothing else
// (test/server/process/lean-start.test.ts, docs/performance.md "Start-up").

const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string };

const program = withReadDbFlags(new Command("baton-api"))
  .description("Baton API server: durable business-process orchestration over HTTP")
  .version(pkg.version, "--version", "print the version and exit");
for (const option of SERVER_FLAGS) program.addOption(option);
program
  // One line for a bad flag, like every other start-up failure (README promises it).
  .configureOutput({
    outputError: (text, write) => write(`baton-api: ${text.replace(/^error: /, "").trimEnd()} (see --help)\n`),
  })
  .action(async (opts) => {
    const config = configFromFlags(opts);
    await checkBeforeOpening(config);
    const log = createLogger(config.logLevel);
    // Before the server: the first request's span needs it. Loads no OpenTelemetry code unless
    // the OTEL_* variables turn tracing on (docs/tracing.md "Off by default").
    await startTracing(process.env, pkg.version, log.warn).catch((error: unknown) =>
      log.error("tracing could not start; running without it", { error: errorText(error) }),
    );
    await serve(config, log);
  });
registerTokensCommand(program);

/** The config the flags give; a flag that cannot be used ends the process with its sentence. */
function configFromFlags(opts: Record<string, any>): ServerConfig {
  try {
    return { ...configFrom(program, opts), ...readDbConfig(opts as Parameters<typeof readDbConfig>[0], fatal) };
  } catch (error) {
    return fatal((error as Error).message);
  }
}

/** What fails without the database: checked before it is opened, so a bad secret file never waits for a migration. */
async function checkBeforeOpening(config: ServerConfig): Promise<void> {
  const [{ checkAuthConfig }, { fetchPolicyOf }] = await Promise.all([
    import("./auth/index.js"),
    import("./engine/fetch/host-policy.js"),
  ]);
  try {
    checkAuthConfig(config);
    // Bad --fetch-* entries fail at start-up, not on the first fetch.
    fetchPolicyOf(config);
  } catch (error) {
    fatal((error as Error).message);
  }
}

/**
 * Starts the server and stops it on SIGTERM/SIGINT. The handlers go in before start-up: a
 * signal that arrives while the database is opening (or right after "listening" is logged)
 * must still shut down cleanly, not kill.
 */
async function serve(config: ServerConfig, log: Logger): Promise<void> {
  let server: Awaited<ReturnType<typeof startServer>> | undefined;
  let stopSignal: string | undefined;
  const stop = (signal: string) => {
    if (stopSignal) return;
    stopSignal = signal;
    log.info("shutting down", { signal });
    const force = setTimeout(() => {
      log.error("shutdown took longer than 30s; exiting");
      process.exit(1);
    }, 30_000);
    force.unref();
    if (!server) return; // start-up finishes, then sees stopSignal
    // Tracing stops after the server: the last advances' spans are exported before the exit.
    server
      .close()
      .then(stopTracing)
      .then(
        () => process.exit(0),
        (error) => {
          log.error("shutdown failed", { error: errorText(error) });
          process.exit(1);
        },
      );
  };
  process.on("SIGTERM", () => stop("SIGTERM"));
  process.on("SIGINT", () => stop("SIGINT"));
  try {
    server = await (await import("./server.js")).startServer(config, log);
  } catch (error) {
    return fatal(startupMessage(error, config));
  }
  if (stopSignal) {
    await server.close();
    await stopTracing();
    process.exit(0);
  }
}

function startupMessage(error: unknown, config: ServerConfig): string {
  const e = error as NodeJS.ErrnoException;
  if (e.code === "EADDRINUSE") return `cannot listen on ${config.host}:${config.port}: the address is already in use`;
  if (e.code === "EACCES") return `cannot listen on ${config.host}:${config.port}: permission denied`;
  if (e.code === "ECONNREFUSED" || e.code === "ENOTFOUND" || e.code === "ETIMEDOUT" || e.code === "CONNECT_TIMEOUT") {
    return `cannot reach the database at ${redactUrl(config.dbUrl ?? "")}: ${e.message}`;
  }
  return `cannot start: ${(error as Error).message}`;
}

function fatal(message: string): never {
  process.stderr.write(`baton-api: ${message}\n`);
  process.exit(1);
}

// Every flag is also BATON_<FLAG>, --db DATABASE_URL (docs/deploy.md "Configuration from the environment").
try {
  readFlagsFromEnvironment(program, "BATON_");
} catch (error) {
  fatal((error as Error).message);
}
// Parsed, the flags' variables leave the environment: a process's settings are BATON_<PROCESS>_<NAME>
// variables too, and none may read the server's own (docs/deploy.md "Configuration from the environment").
program.hook("preAction", () => forgetFlagVariables(program, "BATON_"));
await program.parseAsync(process.argv);
