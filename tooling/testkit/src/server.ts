import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";
import postgres from "postgres";

export const API_MAIN = fileURLToPath(new URL("../../../apps/api/dist/main.js", import.meta.url));

export interface TestServer {
  url: string;
  /** The database URL this server uses (postgres) or its data dir (PGlite). */
  database: string;
  child: ChildProcess;
  /** Everything the server wrote to stderr so far (its JSON log lines). */
  stderr(): string;
  /** SIGTERM, wait for exit (SIGKILL after 10 s), then drop the fresh database if one was made. */
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
 * database when DATABASE_URL is set, else on a throwaway PGlite (`memory://`).
 */
export async function startServer(options: StartOptions = {}): Promise<TestServer> {
  const args = [...(options.args ?? [])];
  const has = (flag: string) => args.includes(flag) || args.some((a) => a.startsWith(`${flag}=`));
  let database = options.database;
  let ownsDatabase = false;
  if (!has("--db") && !has("--data-dir")) {
    if (!database) {
      if (process.env.DATABASE_URL) {
        database = await createTestDatabase();
        ownsDatabase = true;
      } else database = "memory://";
    }
    if (/^postgres(ql)?:/.test(database)) args.push("--db", database);
    else args.push("--data-dir", database);
  }
  if (!has("--http")) args.push("--http", "127.0.0.1:0");
  const env: Record<string, string> = { ...(process.env as Record<string, string>), ...options.env };
  delete env.DATABASE_URL; // the server must use exactly the --db given here
  const child = spawn(process.execPath, [API_MAIN, ...args], { env, stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  let stdout = "";
  child.stdout!.on("data", (d: Buffer) => (stdout += d.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`baton-api did not start within ${options.timeoutMs ?? 60_000} ms:\n${stderr}`)), options.timeoutMs ?? 60_000);
    timer.unref();
    child.stderr!.on("data", (d: Buffer) => {
      stderr += d.toString();
      const m = /"msg":"listening","url":"([^"]+)"/.exec(stderr);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`baton-api exited with ${code} before listening:\n${stderr}${stdout}`));
    });
  });
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null) resolve();
    else child.once("exit", () => resolve());
  });
  let stopped: Promise<void> | undefined;
  return {
    url,
    database: database ?? "",
    child,
    stderr: () => stderr,
    kill: async () => {
      child.kill("SIGKILL");
      await exited;
    },
    stop: () =>
      (stopped ??= (async () => {
        if (child.exitCode === null && child.signalCode === null) {
          child.kill("SIGTERM");
          const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
          await exited;
          clearTimeout(timer);
        }
        if (ownsDatabase && database) await dropTestDatabase(database);
      })()),
  };
}
