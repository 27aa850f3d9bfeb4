import type { ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";
import postgres from "postgres";
import { spawnListening } from "./listening-process.js";
import { freshPgliteDir, migrateInto, removePgliteDir, templateKey } from "./pglite-template.js";
import { holdToContract } from "./response-contract.js";

export const API_MAIN = fileURLToPath(new URL("../../../apps/api/dist/main.js", import.meta.url));

export interface TestServer {
  url: string;
  /** The database URL this server uses (postgres) or its data dir (PGlite). */
  database: string;
  child: ChildProcess;
  /** Everything the server wrote to stderr so far (its JSON log lines). */
  stderr(): string;
  /** SIGTERM, wait for exit (SIGKILL after 10 s), then drop the fresh database or data dir if one was made. */
  stop(): Promise<void>;
  /** SIGKILL now (crash tests); the database is kept for another server to take over. */
  kill(): Promise<void>;
}

export interface StartOptions {
  /** Extra flags for `baton-api`. `--http`, `--db`/`--data-dir` are added unless given. */
  args?: string[];
  env?: Record<string, string>;
  /** Reuse this database URL or PGlite data dir (a second replica, a restart). */
  database?: string;
  /** How long to wait for the `listening` line. */
  timeoutMs?: number;
}

/** A fresh, empty PostgreSQL database on the server of DATABASE_URL; returns its URL. */
export async function createTestDatabase(): Promise<string> {
  const admin = process.env.DATABASE_URL;
  if (!admin) throw new Error("createTestDatabase needs DATABASE_URL");
  const name = `baton_t_${randomBytes(6).toString("hex")}`;
  const sql = postgres(admin, { max: 1, onnotice: () => {} });
  try {
    await sql.unsafe(`create database ${name}`);
  } finally {
    await sql.end({ timeout: 5 });
  }
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return url.toString();
}

let template: Promise<string> | undefined;

/**
 * The name of a database on DATABASE_URL's server with this checkout's migrations applied
 * (the key of pglite-template.ts in its name), made once per server by the built server and
 * kept there. Several test processes may make it at once: each migrates its own and renames it
 * into place, and the first rename wins. Nothing may stay connected to it: PostgreSQL copies a
 * template only while no session is on it.
 */
function migratedTemplateDatabase(): Promise<string> {
  template ??= (async () => {
    const name = `baton_tpl_${templateKey()}`;
    const sql = postgres(process.env.DATABASE_URL!, { max: 1, onnotice: () => {} });
    try {
      if ((await sql`select 1 from pg_database where datname = ${name}`).length > 0) return name;
      const building = await createTestDatabase();
      const buildingName = new URL(building).pathname.slice(1);
      try {
        await migrateInto("--db", building);
        // The migrating process has exited, but its session may end a moment later (55006).
        for (let attempt = 0; ; attempt++) {
          try {
            await sql.unsafe(`alter database ${buildingName} rename to ${name}`);
            return name;
          } catch (error) {
            const code = (error as { code?: string }).code;
            if (code === "42P04") return name; // another test process renamed its copy first
            if (code !== "55006" || attempt >= 50) throw error;
            await new Promise((resolve) => setTimeout(resolve, 100));
          }
        }
      } finally {
        await sql.unsafe(`drop database if exists ${buildingName} with (force)`);
      }
    } finally {
      await sql.end({ timeout: 5 });
    }
  })();
  template.catch(() => (template = undefined));
  return template;
}

/**
 * A fresh PostgreSQL database on the server of DATABASE_URL, already migrated: a copy
 * (`CREATE DATABASE … TEMPLATE`) of `migratedTemplateDatabase`, so a server or harness opening it
 * finds nothing to migrate (migrating an empty database took about a second per server start).
 * `createTestDatabase` is an empty one, for tests of migrations themselves.
 */
export async function freshTestDatabase(): Promise<string> {
  const admin = process.env.DATABASE_URL;
  if (!admin) throw new Error("freshTestDatabase needs DATABASE_URL");
  const source = await migratedTemplateDatabase();
  const name = `baton_t_${randomBytes(6).toString("hex")}`;
  const sql = postgres(admin, { max: 1, onnotice: () => {} });
  try {
    await sql.unsafe(`create database ${name} template ${source}`);
  } finally {
    await sql.end({ timeout: 5 });
  }
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return url.toString();
}

export async function dropTestDatabase(url: string): Promise<void> {
  const admin = process.env.DATABASE_URL;
  if (!admin) return;
  const name = new URL(url).pathname.slice(1);
  const sql = postgres(admin, { max: 1, onnotice: () => {} });
  try {
    await sql.unsafe(`drop database if exists ${name} with (force)`);
  } finally {
    await sql.end({ timeout: 5 });
  }
}

/**
 * Starts the real, built `baton-api` on a free loopback port: on a fresh PostgreSQL
 * database when DATABASE_URL is set (a copy of a migrated template database,
 * `freshTestDatabase`), else on a fresh PGlite data directory, a copy of the migrated template
 * (pglite-template.ts), which the server opens without running initdb.
 */
export async function startServer(options: StartOptions = {}): Promise<TestServer> {
  const args = [...(options.args ?? [])];
  const has = (flag: string) => args.includes(flag) || args.some((a) => a.startsWith(`${flag}=`));
  let database = options.database;
  let ownsDatabase = false;
  if (!has("--db") && !has("--data-dir")) {
    if (!database) {
      database = process.env.DATABASE_URL ? await freshTestDatabase() : await freshPgliteDir();
      ownsDatabase = true;
    }
    if (/^postgres(ql)?:/.test(database)) args.push("--db", database);
    else args.push("--data-dir", database);
  }
  if (!has("--http")) args.push("--http", "127.0.0.1:0");
  const env: Record<string, string> = { ...(process.env as Record<string, string>), ...options.env };
  delete env.DATABASE_URL; // the server must use exactly the --db given here
  const dispose = async () => {
    if (!ownsDatabase || !database) return;
    if (/^postgres(ql)?:/.test(database)) await dropTestDatabase(database);
    else removePgliteDir(database);
  };
  const started = await spawnListening("baton-api", API_MAIN, args, env, options.timeoutMs ?? 60_000);
  const { url, child } = started;
  holdToContract(url);
  let stopped: Promise<void> | undefined;
  return {
    url,
    database: database ?? "",
    child,
    stderr: started.stderr,
    kill: async () => {
      child.kill("SIGKILL");
      await started.exited;
    },
    stop: () =>
      (stopped ??= (async () => {
        await started.terminate();
        await dispose();
      })()),
  };
}
