import { freshPgliteDir, removePgliteDir } from "./pglite-template.js";
import { dropTestDatabase, freshTestDatabase } from "./server.js";

// Every database-backed suite runs on both engines: on PGlite by default, on PostgreSQL when
// DATABASE_URL names a server the tests may create databases on (CI runs both).

/** True when this run is on PostgreSQL (DATABASE_URL set); suites that need it use describe.skipIf(!onPostgres). */
export const onPostgres = Boolean(process.env.DATABASE_URL);

/** The engine this run is on, as /healthz names it. */
export const databaseKind: "postgres" | "pglite" = onPostgres ? "postgres" : "pglite";

/**
 * A database that outlives one process: bootstrap commands, seeding and one or more servers
 * of a test all open it in turn. A fresh PostgreSQL database under DATABASE_URL, else a fresh PGlite
 * data directory in a temp dir, already migrated (never `memory://`, which dies with its process).
 */
export interface SharedDatabase {
  /** What startServer({ database }) and openDatabase take: the URL or the data dir. */
  location: string;
  /** The `baton-api` flags that open it: `--db URL` or `--data-dir DIR`. */
  flags: string[];
  /** What the api's openDatabase takes to open it in the test's own process (seeding, checks). */
  connection: { url: string } | { dataDir: string };
  /** Drops the database or deletes the directory. */
  dispose(): Promise<void>;
}

export async function sharedDatabase(prefix = "baton-db-"): Promise<SharedDatabase> {
  if (onPostgres) {
    const url = await freshTestDatabase();
    return { location: url, flags: ["--db", url], connection: { url }, dispose: () => dropTestDatabase(url) };
  }
  const dir = await freshPgliteDir(prefix);
  return {
    location: dir,
    flags: ["--data-dir", dir],
    connection: { dataDir: dir },
    dispose: async () => removePgliteDir(dir),
  };
}
