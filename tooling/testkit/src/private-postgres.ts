import { execFile } from "node:child_process";
import { chmodSync, chownSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
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
  /**
   * A streaming replica of it made by `pg_basebackup -R` (a hot standby replaying its WAL), on
   * a port of its own; its `url` names the same `baton` database, read-only.
   */
  streamingReplica(): Promise<PrivatePostgres>;
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
  const server = await serve(pg, root, data, port);
  await pg("createdb", ["-h", "127.0.0.1", "-p", String(port), "-U", "postgres", "baton"]);
  const replicas: PrivatePostgres[] = [];
  const streamingReplica = async (): Promise<PrivatePostgres> => {
    const replicaData = join(root, `replica-${replicas.length}`);
    const replicaPort = await freePort();
    // -R writes standby.signal and primary_conninfo: it starts as a hot standby streaming from here.
    await pg("pg_basebackup", [
      "-h",
      "127.0.0.1",
      "-p",
      String(port),
      "-U",
      "postgres",
      "-D",
      replicaData,
      "-R",
      "-X",
      "stream",
      // A fast checkpoint: the default spreads it over minutes.
      "-c",
      "fast",
    ]);
    const replica = await serve(pg, root, replicaData, replicaPort);
    const made: PrivatePostgres = {
      url: `postgres://postgres@127.0.0.1:${replicaPort}/baton`,
      ...replica,
      destroy: async () => {
        await replica.stop("immediate").catch(() => {});
        rmSync(replicaData, { recursive: true, force: true });
      },
      streamingReplica: () => Promise.reject(new Error("a replica of a replica is not offered")),
    };
    replicas.push(made);
    return made;
  };
  let destroyed = false;
  return {
    url: `postgres://postgres@127.0.0.1:${port}/baton`,
    ...server,
    streamingReplica,
    destroy: async () => {
      if (destroyed) return;
      destroyed = true;
      for (const r of replicas) await r.destroy();
      await server.stop("immediate").catch(() => {});
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/** Starts the server of `data` on `port` (sockets in `root`) and returns its start and stop. */
async function serve(
  pg: (bin: string, args: string[]) => Promise<unknown>,
  root: string,
  data: string,
  port: number,
): Promise<Pick<PrivatePostgres, "start" | "stop">> {
  // fsync off is safe for a process crash (the OS keeps the writes); synchronous_commit off is
  // not: -m immediate would lose commits the server had already acknowledged.
  const options = `-p ${port} -k ${root} -c listen_addresses=127.0.0.1 -c max_connections=200 -c fsync=off -c full_page_writes=off`;
  const start = async () => {
    await pg("pg_ctl", [
      "-D",
      data,
      "-l",
      join(root, `${basename(data)}.log`),
      "-w",
      "-t",
      "60",
      "-o",
      options,
      "start",
    ]);
  };
  const stop = async (mode: "fast" | "immediate" = "fast") => {
    await pg("pg_ctl", ["-D", data, "-m", mode, "-w", "-t", "60", "stop"]);
  };
  await start();
  return { start, stop };
}
