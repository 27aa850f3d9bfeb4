import type { ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";
import postgres from "postgres";
import { spawnListening } from "./listening-process.js";
import { freshPgliteDir, removePgliteDir } from "./pglite-template.js";
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
 * database when DATABASE_URL is set, else on a fresh PGlite data directory, a copy of the
 * migrated template (pglite-template.ts), which the server opens without running initdb.
 */
export async function startServer(options: StartOptions = {}): Promise<TestServer> {
  const args = [...(options.args ?? [])];
  const has = (flag: string) => args.includes(flag) || args.some((a) => a.startsWith(`${flag}=`));
  let database = options.database;
  let ownsDatabase = false;
  if (!has("--db") && !has("--data-dir")) {
    if (!database) {
      database = process.env.DATABASE_URL ? await createTestDatabase() : await freshPgliteDir();
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
