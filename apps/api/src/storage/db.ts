import { mkdirSync } from "node:fs";
import { acquireDataDirLock } from "./data-dir-lock.js";
import { fileURLToPath } from "node:url";
import { PGlite } from "@electric-sql/pglite";
import type { SQL } from "drizzle-orm";
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import { drizzle as drizzleLite } from "drizzle-orm/pglite";
import { migrate as migrateLite } from "drizzle-orm/pglite/migrator";
import { drizzle as drizzlePg } from "drizzle-orm/postgres-js";
import { migrate as migratePg } from "drizzle-orm/postgres-js/migrator";
import postgres from "postgres";
import * as schema from "./schema/index.js";

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
}

export interface OpenOptions {
  /** postgres:// or postgresql:// URL; when absent PGlite is used. */
  url?: string;
  /** PGlite data directory, or "memory://" for a throwaway database. */
  dataDir?: string;
  /** postgres-js pool size. */
  poolSize?: number;
}

// Same path from src/ (vitest) and dist/ (node): both sit one level below the package root.
const migrationsFolder = fileURLToPath(new URL("../../drizzle", import.meta.url));

// Any constant works; it only has to be the same in every replica.
const MIGRATION_LOCK_KEY = 7_114_200_211;

export async function openDatabase(options: OpenOptions): Promise<Database> {
  if (options.url) return openPostgres(options.url, options.poolSize ?? 10);
  return openPglite(options.dataDir ?? "./.baton");
}

async function openPostgres(url: string, max: number): Promise<Database> {
  const client = postgres(url, { max, onnotice: () => {}, connect_timeout: 10 });
  try {
    const db = drizzlePg(client, { schema }) as unknown as Db;
    // Several replicas may start at once: the first migrates, the others wait on the lock and
    // then find nothing to do. The lock lives on one reserved connection for the duration.
    const locker = await client.reserve();
    try {
      await locker`select pg_advisory_lock(${MIGRATION_LOCK_KEY})`;
      try {
        await migratePg(drizzlePg(client, { schema }), { migrationsFolder });
      } finally {
        await locker`select pg_advisory_unlock(${MIGRATION_LOCK_KEY})`;
      }
    } finally {
      locker.release();
    }
    return {
      db,
      kind: "postgres",
      ping: async () => {
        await client`select 1`;
      },
      close: () => client.end({ timeout: 5 }),
    };
  } catch (error) {
    await client.end({ timeout: 1 }).catch(() => {});
    throw error;
  }
}

async function openPglite(dataDir: string): Promise<Database> {
  const memory = dataDir === "memory://" || dataDir === "";
  let release = () => {};
  if (!memory) {
    mkdirSync(dataDir, { recursive: true });
    // PGlite has no lock of its own: a second process on the same directory corrupts it.
    release = acquireDataDirLock(dataDir);
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
    const db = drizzleLite(client, { schema }) as unknown as Db;
    await migrateLite(drizzleLite(client, { schema }), { migrationsFolder });
    return {
      db,
      kind: "pglite",
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
