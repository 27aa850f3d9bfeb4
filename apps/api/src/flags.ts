import { type Command, InvalidArgumentError, Option } from "commander";
import { SCOPE_PATTERN_SOURCE } from "@baton/actions/scope-rule";
import { parseDurationWithUnit } from "@baton/model/duration";
import { isLogLevel, type LogLevel } from "@baton/log";
import { DEFAULT_CONFIG, parseListenAddress, type ServerConfig } from "./config.js";
import { redactUrl } from "./format.js";
import { LIMITS, type ServerLimits } from "./limits.js";

// The flags of `baton-api` (docs/limits.md lists the limits among them): the one table that
// declares them, and ServerConfig assembled from their values.

/** How a flag's value is read: `name` is the flag, for the message when it cannot be. */
type Parse<T> = (value: string, previous: T, name: string) => T;

/** A flag's row: its value read by `parse` when given, `fallback` when absent. */
function flag<T>(flags: string, description: string, fallback?: T, parse?: Parse<T>): Option {
  const option = new Option(flags, description);
  if (parse !== undefined)
    option.argParser((value: string, previous: T) => parse(value, previous, option.long ?? flags));
  if (fallback !== undefined) option.default(fallback);
  return option;
}

/** An integer of at least `min`. */
function integer(min: number): Parse<number> {
  return (value, _previous, name) => {
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
function retentionDuration(value: string, _previous: number | undefined, name: string): number {
  let ms: number;
  try {
    ms = parseDurationWithUnit(value);
  } catch (error) {
    throw new InvalidArgumentError(`${name}: ${(error as Error).message}`);
  }
  if (ms < 60_000) throw new InvalidArgumentError(`${name} must be at least 1m (got "${value}")`);
  return ms;
}

function nameList(value: string, previous: string[] = []): string[] {
  return [
    ...previous,
    ...value
      .split(",")
      .map((name) => name.trim())
      .filter(Boolean),
  ];
}

/** `--share-global` entries: `NAME`, `*`, or `NAME=<scope pattern>` (docs/security.md "The secret model"). */
function shareList(value: string, previous: string[] = []): string[] {
  const entries = nameList(value);
  const bad = entries.find((entry) => {
    const at = entry.indexOf("=");
    return at >= 0 && (at === 0 || !new RegExp(SCOPE_PATTERN_SOURCE).test(entry.slice(at + 1)));
  });
  if (bad !== undefined)
    throw new InvalidArgumentError(
      `"${bad}" is not NAME=<scope pattern>; expected a setting name, then = and a process name or a prefix with a trailing * (billing, orders-*)`,
    );
  return [...previous, ...entries];
}

function variableList(value: string, previous: string[] = []): string[] {
  const names = nameList(value);
  const bad = names.find((name) => !/^[A-Z0-9_*]+$/.test(name));
  if (bad !== undefined)
    throw new InvalidArgumentError(
      `--secret-variables takes variable names of A-Z, 0-9 and _, with * as a wildcard (got "${bad}")`,
    );
  return [...previous, ...names];
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

// Every flag of the server, in the order --help lists them: one row each, its spelling, its
// sentence, how its value is read and its default. ServerConfig is assembled from their values
// in configFrom below.
export const SERVER_FLAGS: Option[] = [
  new Option("--http <addr>", "listen address HOST:PORT (port 0 = any free port)").default("127.0.0.1:8449"),
  new Option("--db <url>", "PostgreSQL URL; default: embedded PGlite in --data-dir").env("DATABASE_URL"),
  flag("--data-dir <dir>", 'PGlite data directory ("memory://" for a throwaway database)', DEFAULT_CONFIG.dataDir),
  flag("--poll <ms>", "engine poll interval in ms; 0 = only POST /tick advances", DEFAULT_CONFIG.pollMs, integer(0)),
  flag("--max-concurrent <n>", "advances in flight at once in this process", DEFAULT_CONFIG.maxConcurrent, integer(1)),
  new Option("--auth <mode>", "authentication mode").choices(["none", "token"]).default("none"),
  flag("--jwt-audience <aud>", "audience the sign-in proxy's JWTs must carry"),
  flag("--jwt-issuer <iss>", "issuer the sign-in proxy's JWTs must carry"),
  flag(
    "--jwt-secret-file <path>",
    "file holding the HS256 secret shared with the sign-in proxy (at least 32 characters)",
  ),
  flag(
    "--jwt-scopes-claim <name>",
    "JWT claim holding the person's scope patterns (absent claim: every process)",
    DEFAULT_CONFIG.jwtScopesClaim,
  ),
  new Option("--log-level <level>", "debug | info | warn | error").default("info"),
  flag(
    "--max-body <bytes>",
    "request body limit in bytes of every endpoint but the definition endpoints (413 above)",
    DEFAULT_CONFIG.maxBodyBytes,
    integer(1024),
  ),
  flag(
    "--max-definition-body <bytes>",
    "request body limit in bytes of PUT /definitions, PUT /definitions/batch, POST /definitions/validate and /compat (413 above)",
    DEFAULT_CONFIG.maxDefinitionBodyBytes,
    integer(1024),
  ),
  flag(
    "--object-threshold <bytes>",
    "JSON values larger than this are stored once in objects",
    DEFAULT_CONFIG.objectThresholdBytes,
    integer(64),
  ),
  flag(
    "--object-resolve-limit <bytes>",
    "detail?resolve=true splices objects up to this size",
    DEFAULT_CONFIG.objectResolveLimitBytes,
    integer(0),
  ),
  flag(
    "--fetch-allow <entries>",
    "where fetch tasks may connect, comma-separated: hosts, *.suffix, IPs, CIDRs; default anywhere the address classes allow",
    [],
    hostList,
  ),
  flag(
    "--fetch-deny <entries>",
    "where fetch tasks may not connect, comma-separated: hosts, *.suffix, IPs, CIDRs (checked on resolved addresses)",
    [],
    hostList,
  ),
  flag(
    "--fetch-allow-class <classes>",
    "address classes fetch tasks may reach although denied by default: loopback, link-local, unspecified, multicast, broadcast",
    [],
    hostList,
  ),
  flag(
    "--fetch-deny-class <classes>",
    "address classes fetch tasks may not reach: loopback, link-local, private, unique-local, unspecified, multicast, broadcast",
    [],
    hostList,
  ),
  flag(
    "--share-global <names>",
    "setting names whose BATON_GLOBAL_<NAME> variable every process may read, comma-separated, repeatable (* = all); NAME=<scope pattern> shares it with the processes the pattern reaches only (billing, orders-*); other globals are withheld",
    [],
    shareList,
  ),
  flag(
    "--secret-variables <names>",
    "variables whose values are secret wherever they appear (redacted in every view, log and error), comma-separated, repeatable, * as a wildcard (e.g. BATON_*_TOKEN); a setting read from <VARIABLE>_FILE is secret without it",
    [],
    variableList,
  ),
  flag("--no-tick", "disable POST /tick (it then answers 501)"),
  flag(
    "--retention <duration>",
    "delete root trees settled longer ago than this (e.g. 30d), with their logs and unreferenced objects; default: keep forever",
    undefined,
    retentionDuration,
  ),
  flag(
    "--log-retention <duration>",
    "delete log lines older than this (e.g. 7d); default: keep them as long as their instance",
    undefined,
    retentionDuration,
  ),
  flag(
    "--db-connect-timeout <ms>",
    "PostgreSQL: give up opening a connection after this many ms",
    DEFAULT_CONFIG.dbTimeouts.connectTimeoutMs,
    integer(100),
  ),
  flag(
    "--db-statement-timeout <ms>",
    "PostgreSQL: cancel a statement (or end a transaction left idle) after this many ms",
    DEFAULT_CONFIG.dbTimeouts.statementTimeoutMs,
    integer(100),
  ),
  flag(
    "--db-reconnect-max <ms>",
    "PostgreSQL: longest pause before reconnecting after a connection failed",
    DEFAULT_CONFIG.dbTimeouts.reconnectMaxMs,
    integer(10),
  ),
  flag(
    "--db-ping-timeout <ms>",
    "/healthz answers 503 when the database does not answer its ping within this many ms",
    DEFAULT_CONFIG.dbTimeouts.pingTimeoutMs,
    integer(10),
  ),
  // The resource limits, one flag each (limits.ts; docs/limits.md lists them).
  ...LIMITS.map((limit) => flag(`--${limit.flag} <n>`, limit.description, limit.default, integer(limit.min))),
];

/**
 * ServerConfig from the parsed flags of `program`; throws an Error whose message is the sentence
 * naming a flag that cannot be used.
 */
export function configFrom(program: Command, opts: Record<string, any>): ServerConfig {
  if (!isLogLevel(opts.logLevel))
    throw new Error(`--log-level must be one of debug, info, warn, error (got "${opts.logLevel}")`);
  const listen = parseListenAddress(opts.http);
  if (opts.db !== undefined && !/^postgres(ql)?:\/\//.test(opts.db))
    throw new Error(`--db must be a postgres:// or postgresql:// URL (got "${redactUrl(opts.db)}")`);
  return {
    ...DEFAULT_CONFIG,
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
    jwtScopesClaim: opts.jwtScopesClaim,
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
    secretVariables: opts.secretVariables,
    tickEnabled: opts.tick !== false,
    retentionMs: opts.retention,
    logRetentionMs: opts.logRetention,
    dbTimeouts: {
      connectTimeoutMs: opts.dbConnectTimeout,
      statementTimeoutMs: opts.dbStatementTimeout,
      reconnectMaxMs: opts.dbReconnectMax,
      pingTimeoutMs: opts.dbPingTimeout,
    },
    limits: limitsFrom(program, opts),
  };
}

/** Each limit's flag value; on PGlite a limit's embedded default (limits.ts pgliteDefault) unless the flag was given. */
function limitsFrom(program: Command, opts: Record<string, any>): ServerLimits {
  return Object.fromEntries(
    LIMITS.map((l) => {
      const key = camelCase(l.flag);
      const embedded =
        opts.db === undefined && l.pgliteDefault !== undefined && program.getOptionValueSource(key) === "default";
      return [l.key, embedded ? l.pgliteDefault : opts[key]];
    }),
  ) as unknown as ServerLimits;
}
