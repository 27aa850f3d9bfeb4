import type { LogLevel } from "@baton/log";
import { DEFAULT_LIMITS, type ServerLimits } from "./limits.js";
import { type DatabaseTimeouts, DEFAULT_DATABASE_TIMEOUTS } from "./storage/database-timeouts.js";

export type AuthMode = "none" | "token";

/** Everything the flags of `baton-api` decide (main.ts parses them; tests build it directly). */
export interface ServerConfig {
  host: string;
  /** 0 = any free port (the bound address is logged as `listening`). */
  port: number;
  /** PostgreSQL URL (`--db` or DATABASE_URL); absent = PGlite in dataDir. */
  dbUrl?: string;
  dataDir: string;
  /** Engine poll interval in ms; 0 = only /tick advances. */
  pollMs: number;
  maxConcurrent: number;
  auth: AuthMode;
  jwtAudience?: string;
  jwtIssuer?: string;
  jwtSecretFile?: string;
  /** The JWT claim holding the person's scope patterns (--jwt-scopes-claim, docs/auth.md "Scopes"). */
  jwtScopesClaim: string;
  logLevel: LogLevel;
  /** Request body cap in bytes (413 above). */
  /** Request body limit of every endpoint but the definition endpoints (--max-body). */
  maxBodyBytes: number;
  /** Request body limit of PUT /definitions, PUT /definitions/batch, POST /definitions/validate and /compat (--max-definition-body). */
  maxDefinitionBodyBytes: number;
  /** JSON values larger than this are externalized into `objects`. */
  objectThresholdBytes: number;
  /** `detail?resolve=true` splices objects up to this size back into the state. */
  objectResolveLimitBytes: number;
  /**
   * Where fetch tasks may connect (engine/fetch/host-policy.ts, docs/security.md): entries are
   * host names, `*.suffix`, IPs or CIDRs (allow: empty = any). The classes re-allow address
   * classes denied by default (loopback when not bound to loopback, link-local, unspecified,
   * multicast, broadcast) or deny more (private, unique-local, loopback).
   */
  fetchAllowHosts: string[];
  fetchDenyHosts: string[];
  fetchAllowClasses: string[];
  fetchDenyClasses: string[];
  /**
   * Setting names whose `BATON_GLOBAL_<NAME>` every process may read (--share-global; `*` for
   * all); the other globals are withheld at start (docs/security.md "The secret model").
   */
  sharedGlobals: string[];
  /**
   * Variable patterns (--secret-variables, `*` wildcard) whose values are secret wherever they
   * appear, besides settings read from a `_FILE` (docs/security.md "The secret model").
   */
  secretVariables: string[];
  /** Whether POST /tick is enabled (otherwise 501). */
  tickEnabled: boolean;
  /** PostgreSQL waits (--db-connect-timeout, --db-statement-timeout, --db-reconnect-max, --db-ping-timeout). */
  dbTimeouts: DatabaseTimeouts;
  /** Resource limits (limits.ts, docs/limits.md): each has a `--limit-…` flag. */
  limits: ServerLimits;
  /** --read-db: a streaming replica for the read-only handlers (docs/deploy.md "Read replicas"). */
  readDbUrl?: string;
  /** --read-db-max-lag: reads go to the primary while the replica may be further behind (ms). */
  readDbMaxLagMs: number;
  /** --retention: settled root trees older than this are deleted (docs/retention.md); undefined = kept forever. */
  retentionMs?: number;
  /** --log-retention: log lines older than this are deleted; undefined = kept as long as their tree. */
  logRetentionMs?: number;
}

export const DEFAULT_CONFIG: ServerConfig = {
  host: "127.0.0.1",
  port: 8449,
  dataDir: "./.baton",
  pollMs: 500,
  maxConcurrent: 200,
  auth: "none",
  logLevel: "info",
  maxBodyBytes: 256 * 1024,
  maxDefinitionBodyBytes: 4 * 1024 * 1024,
  objectThresholdBytes: 2048,
  objectResolveLimitBytes: 1024 * 1024,
  fetchAllowHosts: [],
  fetchDenyHosts: [],
  fetchAllowClasses: [],
  fetchDenyClasses: [],
  sharedGlobals: [],
  secretVariables: [],
  tickEnabled: true,
  jwtScopesClaim: "scopes",
  dbTimeouts: DEFAULT_DATABASE_TIMEOUTS,
  readDbMaxLagMs: 2_000,
  limits: DEFAULT_LIMITS,
};

/** Parses `HOST:PORT`, `:PORT`, `[::1]:PORT` or `PORT`. Throws with the expected forms. */
export function parseListenAddress(value: string): { host: string; port: number } {
  const m = /^(?:\[([^\]]+)\]|([^:]*)):(\d+)$/.exec(value) ?? /^()()(\d+)$/.exec(value);
  const port = m ? Number(m[3]) : Number.NaN;
  if (!m || !Number.isInteger(port) || port < 0 || port > 65535) {
    throw new Error(`--http "${value}" is not a listen address; expected HOST:PORT, :PORT or PORT (0-65535)`);
  }
  const host = m[1] ?? (m[2] || "0.0.0.0");
  return { host, port };
}

export function isLoopback(host: string): boolean {
  return host === "localhost" || host === "::1" || host.startsWith("127.");
}
