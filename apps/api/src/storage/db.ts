import { mkdirSync } from "node:fs";
import { acquireDataDirLock } from "./data-dir-lock.js";
import { seedFromTemplate } from "./pglite-seed.js";
import { fileURLToPath } from "node:url";
import type { PGlite } from "@electric-sql/pglite";
import { type SQL, sql } from "drizzle-orm";
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import { drizzle as drizzlePg } from "drizzle-orm/postgres-js";
import { migrate as migratePg } from "drizzle-orm/postgres-js/migrator";
import postgres from "postgres";
import * as schema from "./schema/index.js";
import { countInFlight, type PoolGauge } from "./pool-gauge.js";
import { acceptFirst } from "../event-loop.js";
import { type DatabaseTimeouts, DEFAULT_DATABASE_TIMEOUTS } from "./database-timeouts.js";

export { schema };

/** One interface over both drivers. Inside `db.transaction(tx => …)` use only `tx`: on PGlite, `db` there deadlocks. */
export type Db = PgDatabase<PgQueryResultHKT, typeof schema>;
export type DbKind = "postgres" | "pglite";

export interface Database {
  db: Db;
  kind: DbKind;
  /** A cheap round trip, for /healthz. Rejects when the database is unreachable. */
  ping(): Promise<void>;
  close(): Promise<void>;
  /** Work in flight on the connection pool (pool-gauge.ts); PGlite has one connection. */
  pool: PoolGauge;
}

export interface OpenOptions {
  /** postgres:// or postgresql:// URL; when absent PGlite is used. */
  url?: string;
  /** PGlite data directory, or "memory://" for a throwaway database. */
  dataDir?: string;
  /** postgres-js pool size. */
  poolSize?: number;
  /** PostgreSQL only; defaults: DEFAULT_DATABASE_TIMEOUTS. */
  timeouts?: Partial<DatabaseTimeouts>;
}

// Same path from src/ (vitest) and dist/ (node): both sit one level below the package root.
const migrationsFolder = fileURLToPath(new URL("../../drizzle", import.meta.url));

// Any constant works; it only has to be the same in every replica.
const MIGRATION_LOCK_KEY = 7_114_200_211;

export async function openDatabase(options: OpenOptions): Promise<Database> {
  if (options.url)
    return openPostgres(options.url, options.poolSize ?? 10, { ...DEFAULT_DATABASE_TIMEOUTS, ...options.timeouts });
  return openPglite(options.dataDir ?? "./.baton");
}

/** postgres-js options bounding every wait (its durations are in seconds). */
function clientOptions(timeouts: DatabaseTimeouts, reconnectMaxMs: number) {
  return {
    onnotice: () => {},
    connect_timeout: timeouts.connectTimeoutMs / 1000,
    // The driver's own backoff grows with failures shared by the whole pool, up to 20 s; after a
    // restart every statement then waited that long before even trying (docs/engine.md).
    backoff: (retries: number) => Math.min(reconnectMaxMs, 10 * 3 ** retries) / 1000,
    connection: {
      statement_timeout: timeouts.statementTimeoutMs,
      idle_in_transaction_session_timeout: timeouts.statementTimeoutMs,
    },
  };
}

async function openPostgres(url: string, max: number, timeouts: DatabaseTimeouts): Promise<Database> {
  const client = postgres(url, { max, ...clientOptions(timeouts, timeouts.reconnectMaxMs) });
  // Its own connection: a ping queued behind a busy pool would report a healthy database as gone.
  // It retries sooner than the pool so that /healthz sees the database back within a second.
  const newPinger = () => postgres(url, { max: 1, ...clientOptions(timeouts, Math.min(timeouts.reconnectMaxMs, 200)) });
  let pinger = newPinger();
  let pingInFlight: Promise<void> | undefined;
  const ping = async (): Promise<void> => {
    // One round trip at a time: probes arriving while one is out share it instead of queueing.
    const mine = (pingInFlight ??= pinger`select 1`.then(() => undefined));
    try {
      await withTimeout(mine, timeouts.pingTimeoutMs, "the database did not answer the ping");
    } catch (error) {
      // A ping that got no answer may be stuck on a connection the database never answers
      // (accepted while it shut down): drop that client, so the next probe starts afresh
      // instead of sharing it until --db-connect-timeout.
      if (pingInFlight === mine) {
        pingInFlight = undefined;
        const stuck = pinger;
        pinger = newPinger();
        void stuck.end({ timeout: 0 }).catch(() => {});
      }
      throw error;
    }
    if (pingInFlight === mine) pingInFlight = undefined;
  };
  const counted = countInFlight(client, max);
  try {
    const db = drizzlePg(counted.client, { schema }) as unknown as Db;
    // Several replicas may start at once: the first migrates, the others wait on the lock and
    // then find nothing to do. The lock lives on one reserved connection for the duration.
    // Migrating runs on connections of its own without --db-statement-timeout: building an
    // index on a big table, or waiting for another replica's migration, may take longer.
    const migrator = postgres(url, { max: 2, onnotice: () => {}, connect_timeout: timeouts.connectTimeoutMs / 1000 });
    try {
      const locker = await migrator.reserve();
      try {
        await locker`select pg_advisory_lock(${MIGRATION_LOCK_KEY})`;
        try {
          await migratePg(drizzlePg(migrator, { schema }), { migrationsFolder });
        } finally {
          await locker`select pg_advisory_unlock(${MIGRATION_LOCK_KEY})`;
        }
      } finally {
        locker.release();
      }
    } finally {
      await migrator.end({ timeout: 5 });
    }
    // Open two pool connections now (migrations ran on their own connection): the first
    // requests and the first claim round then do not each pay a connect and the driver's type fetch.
    await Promise.all([client`select 1`, client`select 1`]);
    return {
      db,
      kind: "postgres",
      ping,
      pool: counted.gauge,
      close: async () => {
        await Promise.all([client.end({ timeout: 5 }), pinger.end({ timeout: 1 })]);
      },
    };
  } catch (error) {
    await Promise.all([client.end({ timeout: 1 }).catch(() => {}), pinger.end({ timeout: 1 }).catch(() => {})]);
    throw error;
  }
}

/**
 * `promise`, or a rejection once `ms` have passed without its answer. A busy event loop is not
 * a silent database (docs/deploy.md "Probes"): when the timer fires, the verdict waits for the
 * loop's I/O phase (setImmediate runs after it), so an answer that arrived while the loop was
 * blocked past `ms` is read and wins; only a ping still unanswered after that times out.
 */
export function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  let immediate: NodeJS.Immediate | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      immediate = setImmediate(() => reject(Object.assign(new Error(message), { code: "CONNECT_TIMEOUT" })));
    }, ms);
  });
  return Promise.race([promise, timeout]).finally(() => {
    clearTimeout(timer);
    if (immediate !== undefined) clearImmediate(immediate);
  });
}

async function openPglite(dataDir: string): Promise<Database> {
  // Imported here, not at the top: a server on PostgreSQL never loads PGlite (docs/performance.md "Start-up").
  const [{ PGlite }, { drizzle: drizzleLite }, { migrate: migrateLite }] = await Promise.all([
    import("@electric-sql/pglite"),
    import("drizzle-orm/pglite"),
    import("drizzle-orm/pglite/migrator"),
  ]);
  const memory = dataDir === "memory://" || dataDir === "";
  let release = () => {};
  if (!memory) {
    mkdirSync(dataDir, { recursive: true });
    // PGlite has no lock of its own: a second process on the same directory corrupts it.
    release = acquireDataDirLock(dataDir);
    try {
      seedFromTemplate(dataDir);
    } catch (error) {
      release();
      throw error;
    }
  }
  let client: PGlite;
  try {
    client = memory ? new PGlite() : new PGlite(dataDir);
  } catch (error) {
    release();
    throw error;
  }
  try {
    await client.waitReady;
    const counted = countInFlight(takingTurns(client), 1);
    const db = drizzleLite(counted.client, { schema }) as unknown as Db;
    await migrateLite(drizzleLite(client, { schema }), { migrationsFolder });
    return {
      db,
      kind: "pglite",
      pool: counted.gauge,
      ping: async () => {
        await client.query("select 1");
      },
      close: async () => {
        try {
          await client.close();
        } finally {
          release();
        }
      },
    };
  } catch (error) {
    await client.close().catch(() => {});
    release();
    throw error;
  }
}

/** postgres-js returns an array from `execute`, PGlite `{ rows }`: normalise to rows. */
export function rowsOf<T>(result: unknown): T[] {
  if (Array.isArray(result)) return result as T[];
  return ((result as { rows?: T[] }).rows ?? []) as T[];
}

/**
 * `db.execute(query)` for the engine's hot statements (claim, advance batch, lease renewal): on
 * PostgreSQL a named prepared statement, so the server parses and plans the text once per
 * connection instead of on every call (drizzle's `execute` never prepares). Only for statement
 * texts that do not vary from call to call (values as parameters, not spliced), or each new
 * text leaves a prepared statement behind on the connection. PGlite runs it as usual.
 */
export async function executePrepared(db: Db, query: SQL): Promise<unknown> {
  const client = (
    db as unknown as {
      $client?: { unsafe?: (text: string, params: unknown[], options: { prepare: boolean }) => Promise<unknown> };
    }
  ).$client;
  if (client?.unsafe === undefined) return db.execute(query);
  const { sql: text, params } = (
    db as unknown as { dialect: { sqlToQuery(q: SQL): { sql: string; params: unknown[] } } }
  ).dialect.sqlToQuery(query);
  return client.unsafe(text, params, { prepare: true });
}

/**
 * Runs `work` in one transaction and hands it the transaction as a `Db`, so helpers that take
 * a `Db` run inside it. Drizzle types a transaction apart from the database though it offers
 * the same query API; this is the one place that bridges the two.
 */
export function inTransaction<T>(db: Db, work: (tx: Db) => Promise<T>): Promise<T> {
  return db.transaction((tx) => work(tx as unknown as Db));
}

interface RawClient {
  unsafe?: (text: string, params: unknown[], options: { prepare: boolean }) => Promise<unknown>;
  query?: (text: string, params: unknown[]) => Promise<{ rows: unknown[] }>;
}

/**
 * A fixed statement text with positional parameters ($1, $2 …) run straight on the driver: no
 * query builder (on the request paths drizzle's builder cost more server CPU than the statement
 * itself, docs/performance.md), and on PostgreSQL a named prepared statement (see
 * executePrepared). The text must be a constant. Runs on the pool, never inside a transaction.
 */
export async function queryRows<T>(db: Db, text: string, params: readonly unknown[]): Promise<T[]> {
  const client = (db as unknown as { $client: RawClient }).$client;
  if (client.unsafe !== undefined) return (await client.unsafe(text, params as unknown[], { prepare: true })) as T[];
  return (await client.query!(text, params as unknown[])).rows as T[];
}

/**
 * A fixed statement text with positional parameters ($1, $2 …) as a drizzle query, for a
 * transaction's `tx` (queryRows runs on the pool): the same text serves both.
 */
export function positional(text: string, params: readonly unknown[]): SQL {
  const parts = text.split(/\$(\d+)/);
  return sql.join(parts.map((part, i) => (i % 2 === 0 ? sql.raw(part) : sql`${params[Number(part) - 1]}`)));
}

// PGlite runs every statement synchronously on this thread and hands its one connection from
// one queued statement to the next in promise callbacks, which never let the event loop take
// I/O: concurrent large starts would run as one long turn, and no request, /healthz included,
// would be answered until all were done (docs/limits.md "Requests"). So the
// top-level operations take turns here, one at a time, each in a later turn of the event loop
// than the one before ended, and after the connections waiting to be accepted (event-loop.ts).
// A transaction's own statements go through its `tx`, not through here (the transaction holds
// the one connection anyway); calling the top-level client inside a transaction still
// deadlocks, as it did in PGlite's own queue (see `Database`).
const TURNS = new Set<PropertyKey>(["query", "exec", "transaction"]);

function takingTurns(client: PGlite): PGlite {
  let last: Promise<unknown> = Promise.resolve();
  return new Proxy(client, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target) as unknown;
      if (typeof value !== "function") return value;
      if (!TURNS.has(prop)) return value.bind(target);
      return (...args: unknown[]) => {
        const turn = last
          .then(() => acceptFirst())
          .then(() => (value as (...a: unknown[]) => Promise<unknown>).apply(target, args));
        last = turn.catch(() => {});
        return turn;
      };
    },
  });
}
