#!/usr/bin/env node
import { readFileSync } from "node:fs";
import { Command, InvalidArgumentError, Option } from "commander";
import { readFlagsFromEnvironment } from "@baton/flag-env";
import { readDbConfig, withReadDbFlags } from "./read-db-flags.js";
import { parseDurationWithUnit } from "@baton/model";
import { checkAuthConfig } from "./auth/index.js";
import { fetchPolicyOf } from "./engine/advance/host-policy.js";
import { registerTokensCommand } from "./commands/tokens.js";
import { DEFAULT_CONFIG, parseListenAddress, type ServerConfig } from "./config.js";
import { LIMITS, type ServerLimits } from "./limits.js";
import { createLogger, isLogLevel, type LogLevel } from "@baton/log";
import { startServer } from "./server.js";
import { errorText } from "./storage/loggable-error.js";

const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string };

function integer(name: string, min: number) {
  return (value: string) => {
    const n = Number(value);
    if (!/^\d+$/.test(value) || n < min) throw new InvalidArgumentError(`${name} must be an integer >= ${min}`);
    return n;
  };
}

/** The key commander gives a flag's value: `limit-eval-steps` → `limitEvalSteps`. */
function camelCase(flag: string): string {
  return flag.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
}

/** A duration such as 30d, 12h or 90m (docs/retention.md): at least one minute. */
function retentionDuration(name: string) {
  return (value: string) => {
    let ms: number;
    try {
      ms = parseDurationWithUnit(value);
    } catch (error) {
      throw new InvalidArgumentError(`${name}: ${(error as Error).message}`);
    }
    if (ms < 60_000) throw new InvalidArgumentError(`${name} must be at least 1m (got "${value}")`);
    return ms;
  };
}

function hostList(value: string, previous: string[] = []): string[] {
  return [
    ...previous,
    ...value
      .split(",")
      .map((h) => h.trim().toLowerCase())
      .filter(Boolean),
  ];
}

const program = withReadDbFlags(new Command("baton-api"))
  .description("Baton API server: durable business-process orchestration over HTTP")
  .version(pkg.version, "--version", "print the version and exit")
  .addOption(new Option("--http <addr>", "listen address HOST:PORT (port 0 = any free port)").default("127.0.0.1:8449"))
  .addOption(new Option("--db <url>", "PostgreSQL URL; default: embedded PGlite in --data-dir").env("DATABASE_URL"))
  .option("--data-dir <dir>", 'PGlite data directory ("memory://" for a throwaway database)', DEFAULT_CONFIG.dataDir)
  .option(
    "--poll <ms>",
    "engine poll interval in ms; 0 = only POST /tick advances",
    integer("--poll", 0),
    DEFAULT_CONFIG.pollMs,
  )
  .option(
    "--max-concurrent <n>",
    "advances in flight at once in this process",
    integer("--max-concurrent", 1),
    DEFAULT_CONFIG.maxConcurrent,
  )
  .addOption(new Option("--auth <mode>", "authentication mode").choices(["none", "token"]).default("none"))
  .option("--jwt-audience <aud>", "audience the sign-in proxy's JWTs must carry")
  .option("--jwt-issuer <iss>", "issuer the sign-in proxy's JWTs must carry")
  .option(
    "--jwt-secret-file <path>",
    "file holding the HS256 secret shared with the sign-in proxy (at least 32 characters)",
  )
  .addOption(new Option("--log-level <level>", "debug | info | warn | error").default("info"))
  .option(
    "--max-body <bytes>",
    "request body limit in bytes of every endpoint but the definition endpoints (413 above)",
    integer("--max-body", 1024),
    DEFAULT_CONFIG.maxBodyBytes,
  )
  .option(
    "--max-definition-body <bytes>",
    "request body limit in bytes of PUT /definitions, PUT /definitions/batch, POST /definitions/validate and /compat (413 above)",
    integer("--max-definition-body", 1024),
    DEFAULT_CONFIG.maxDefinitionBodyBytes,
  )
  .option(
    "--object-threshold <bytes>",
    "JSON values larger than this are stored once in objects",
    integer("--object-threshold", 64),
    DEFAULT_CONFIG.objectThresholdBytes,
  )
  .option(
    "--object-resolve-limit <bytes>",
    "detail?resolve=true splices objects up to this size",
    integer("--object-resolve-limit", 0),
    DEFAULT_CONFIG.objectResolveLimitBytes,
  )
  .option(
    "--fetch-allow <entries>",
    "where fetch tasks may connect, comma-separated: hosts, *.suffix, IPs, CIDRs; default anywhere the address classes allow",
    hostList,
    [],
  )
  .option(
    "--fetch-deny <entries>",
    "where fetch tasks may not connect, comma-separated: hosts, *.suffix, IPs, CIDRs (checked on resolved addresses)",
    hostList,
    [],
  )
  .option(
    "--fetch-allow-class <classes>",
    "address classes fetch tasks may reach although denied by default: loopback, link-local, unspecified, multicast, broadcast",
    hostList,
    [],
  )
  .option(
    "--fetch-deny-class <classes>",
    "address classes fetch tasks may not reach: loopback, link-local, private, unique-local, unspecified, multicast, broadcast",
    hostList,
    [],
  )
  .option(
    "--share-global <names>",
    "setting names whose BATON_GLOBAL_<NAME> variable every process may read, comma-separated, repeatable (* = all); other globals are withheld",
    (value: string, previous: string[] = []) => [
      ...previous,
      ...value
        .split(",")
        .map((name) => name.trim())
        .filter(Boolean),
    ],
    [],
  )
  .option("--no-tick", "disable POST /tick (it then answers 501)")
  .option(
    "--retention <duration>",
    "delete root trees settled longer ago than this (e.g. 30d), with their logs and unreferenced objects; default: keep forever",
    retentionDuration("--retention"),
  )
  .option(
    "--log-retention <duration>",
    "delete log lines older than this (e.g. 7d); default: keep them as long as their instance",
    retentionDuration("--log-retention"),
  )
  .option(
    "--db-connect-timeout <ms>",
    "PostgreSQL: give up opening a connection after this many ms",
    integer("--db-connect-timeout", 100),
    DEFAULT_CONFIG.dbTimeouts.connectTimeoutMs,
  )
  .option(
    "--db-statement-timeout <ms>",
    "PostgreSQL: cancel a statement (or end a transaction left idle) after this many ms",
    integer("--db-statement-timeout", 100),
    DEFAULT_CONFIG.dbTimeouts.statementTimeoutMs,
  )
  .option(
    "--db-reconnect-max <ms>",
    "PostgreSQL: longest pause before reconnecting after a connection failed",
    integer("--db-reconnect-max", 10),
    DEFAULT_CONFIG.dbTimeouts.reconnectMaxMs,
  )
  .option(
    "--db-ping-timeout <ms>",
    "/healthz answers 503 when the database does not answer its ping within this many ms",
    integer("--db-ping-timeout", 10),
    DEFAULT_CONFIG.dbTimeouts.pingTimeoutMs,
  )
  // One line for a bad flag, like every other start-up failure (README promises it).
  .configureOutput({
    outputError: (text, write) => write(`baton-api: ${text.replace(/^error: /, "").trimEnd()} (see --help)\n`),
  })
  .action(async (opts) => {
    if (!isLogLevel(opts.logLevel))
      fatal(`--log-level must be one of debug, info, warn, error (got "${opts.logLevel}")`);
    let listen: { host: string; port: number };
    try {
      listen = parseListenAddress(opts.http);
    } catch (error) {
      return fatal((error as Error).message);
    }
    if (opts.db !== undefined && !/^postgres(ql)?:\/\//.test(opts.db))
      fatal(`--db must be a postgres:// or postgresql:// URL (got "${redactUrl(opts.db)}")`);
    const config: ServerConfig = {
      ...DEFAULT_CONFIG,
      ...readDbConfig(opts, fatal),
      host: listen.host,
      port: listen.port,
      dbUrl: opts.db,
      dataDir: opts.dataDir,
      pollMs: opts.poll,
      maxConcurrent: opts.maxConcurrent,
      auth: opts.auth,
      jwtAudience: opts.jwtAudience,
      jwtIssuer: opts.jwtIssuer,
      jwtSecretFile: opts.jwtSecretFile,
      logLevel: opts.logLevel as LogLevel,
      maxBodyBytes: opts.maxBody,
      maxDefinitionBodyBytes: opts.maxDefinitionBody,
      objectThresholdBytes: opts.objectThreshold,
      objectResolveLimitBytes: opts.objectResolveLimit,
      fetchAllowHosts: opts.fetchAllow,
      fetchDenyHosts: opts.fetchDeny,
      fetchAllowClasses: opts.fetchAllowClass,
      fetchDenyClasses: opts.fetchDenyClass,
      sharedGlobals: opts.shareGlobal,
      tickEnabled: opts.tick !== false,
      retentionMs: opts.retention,
      logRetentionMs: opts.logRetention,
      dbTimeouts: {
        connectTimeoutMs: opts.dbConnectTimeout,
        statementTimeoutMs: opts.dbStatementTimeout,
        reconnectMaxMs: opts.dbReconnectMax,
        pingTimeoutMs: opts.dbPingTimeout,
      },
      limits: Object.fromEntries(
        LIMITS.map((l) => {
          const key = camelCase(l.flag);
          // The embedded database's own default (limits.ts pgliteDefault) unless the flag was given.
          const embedded =
            opts.db === undefined && l.pgliteDefault !== undefined && program.getOptionValueSource(key) === "default";
          return [l.key, embedded ? l.pgliteDefault : opts[key]];
        }),
      ) as unknown as ServerLimits,
    };
    try {
      // Before the database is opened: a bad secret file must not wait for a migration.
      checkAuthConfig(config);
      // Bad --fetch-* entries fail at start-up, not on the first fetch.
      fetchPolicyOf(config);
    } catch (error) {
      return fatal((error as Error).message);
    }
    const log = createLogger(config.logLevel);
    // Handlers go in before start-up: a signal that arrives while the database is opening
    // (or right after "listening" is logged) must still shut down cleanly, not kill.
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
      server.close().then(
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
      server = await startServer(config, log);
    } catch (error) {
      return fatal(startupMessage(error, config));
    }
    if (stopSignal) {
      await server.close();
      process.exit(0);
    }
  });

// The resource limits, one flag each (limits.ts; docs/limits.md lists them).
for (const limit of LIMITS)
  program.option(`--${limit.flag} <n>`, limit.description, integer(`--${limit.flag}`, limit.min), limit.default);
registerTokensCommand(program);

function redactUrl(url: string): string {
  return url.replace(/\/\/([^:@/]+):[^@/]*@/, "//$1:***@");
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
await program.parseAsync(process.argv);
