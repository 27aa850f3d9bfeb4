import { execFile } from "node:child_process";
import { chmodSync, chownSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);
const PGBIN = process.env.PGBIN ?? "/usr/lib/postgresql/15/bin";

/**
 * A PostgreSQL server of the test's own, for tests that stop, kill or restart the database
 * (never the shared one of DATABASE_URL). As root it runs as the `postgres` user, like CI.
 */
export interface PrivatePostgres {
  /** URL of its `baton` database. */
  url: string;
  /** `pg_ctl stop -m <mode>`: `immediate` is a crash (no checkpoint, every backend killed). */
  stop(mode?: "fast" | "immediate"): Promise<void>;
  /** Start it again on the same port and data. */
  start(): Promise<void>;
  /** Stop it and delete its data directory. */
  destroy(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const root = mkdtempSync(join(tmpdir(), "baton-pg-"));
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const uid = Number((await run("id", ["-u", "postgres"])).stdout.trim());
    const gid = Number((await run("id", ["-g", "postgres"])).stdout.trim());
    chownSync(root, uid, gid);
  }
  chmodSync(root, 0o700);
  const pg = (bin: string, args: string[]) =>
    asRoot ? run("runuser", ["-u", "postgres", "--", join(PGBIN, bin), ...args]) : run(join(PGBIN, bin), args);
  const data = join(root, "data");
  const port = await freePort();
  await pg("initdb", ["-D", data, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--no-locale"]);
  // fsync off is safe for a process crash (the OS keeps the writes); synchronous_commit off is
  // not: -m immediate would lose commits the server had already acknowledged.
  const options = `-p ${port} -k ${root} -c listen_addresses=127.0.0.1 -c max_connections=200 -c fsync=off -c full_page_writes=off`;
  const start = async () => {
    await pg("pg_ctl", ["-D", data, "-l", join(root, "server.log"), "-w", "-t", "60", "-o", options, "start"]);
  };
  const stop = async (mode: "fast" | "immediate" = "fast") => {
    await pg("pg_ctl", ["-D", data, "-m", mode, "-w", "-t", "60", "stop"]);
  };
  await start();
  await pg("createdb", ["-h", "127.0.0.1", "-p", String(port), "-U", "postgres", "baton"]);
  let destroyed = false;
  return {
    url: `postgres://postgres@127.0.0.1:${port}/baton`,
    start,
    stop,
    destroy: async () => {
      if (destroyed) return;
      destroyed = true;
      await stop("immediate").catch(() => {});
      rmSync(root, { recursive: true, force: true });
    },
  };
}
