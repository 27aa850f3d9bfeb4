// Its own module, not db.ts: the flag table (config.ts) reads these defaults, and `baton-api
// --help` must not load the database drivers (test/server/process/lean-start.test.ts).

/** How long any wait on PostgreSQL may last (docs/engine.md, "When the database goes away"). */
export interface DatabaseTimeouts {
  /** Opening one connection gives up after this (CONNECT_TIMEOUT). */
  connectTimeoutMs: number;
  /** The server cancels a statement running longer, and ends a session idle inside a transaction as long. */
  statementTimeoutMs: number;
  /** Longest pause before reconnecting after a connection failed (the driver's default grows to 20 s). */
  reconnectMaxMs: number;
  /** `ping` (/healthz) reports the database unreachable when it has no answer within this. */
  pingTimeoutMs: number;
}

export const DEFAULT_DATABASE_TIMEOUTS: DatabaseTimeouts = {
  connectTimeoutMs: 5_000,
  statementTimeoutMs: 30_000,
  reconnectMaxMs: 1_000,
  pingTimeoutMs: 800,
};
