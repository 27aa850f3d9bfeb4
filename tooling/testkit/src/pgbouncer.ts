import { type ChildProcess, spawn } from "node:child_process";
import { chmodSync, chownSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createConnection, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execFileSync } from "node:child_process";

const PGBOUNCER = process.env.PGBOUNCER ?? "/usr/sbin/pgbouncer";

/** A PgBouncer of the test's own in front of one PostgreSQL database (docs/deploy.md "Connection poolers"). */
export interface Pgbouncer {
  /** The same database, through the pooler. */
  url: string;
  stop(): Promise<void>;
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

/**
 * Starts PgBouncer (Debian's `pgbouncer`, as the `postgres` user when run as root: it refuses
 * root) pooling `databaseUrl` in `mode`. postgres-js sends statement_timeout and
 * idle_in_transaction_session_timeout as startup parameters, which PgBouncer refuses unless told
 * to ignore them; they are then not applied (docs/deploy.md says where to set them instead).
 */
export async function startPgbouncer(databaseUrl: string, mode: "session" | "transaction"): Promise<Pgbouncer> {
  const target = new URL(databaseUrl);
  const dir = mkdtempSync(join(tmpdir(), "baton-pgbouncer-"));
  const port = await freePort();
  const name = target.pathname.slice(1);
  writeFileSync(join(dir, "userlist.txt"), `"${decodeURIComponent(target.username)}" ""\n`);
  writeFileSync(
    join(dir, "pgbouncer.ini"),
    [
      "[databases]",
      `${name} = host=${target.hostname} port=${target.port} dbname=${name}`,
      "[pgbouncer]",
      "listen_addr = 127.0.0.1",
      `listen_port = ${port}`,
      "unix_socket_dir =",
      "auth_type = trust",
      `auth_file = ${join(dir, "userlist.txt")}`,
      `pool_mode = ${mode}`,
      "max_client_conn = 500",
      "default_pool_size = 40",
      "ignore_startup_parameters = extra_float_digits,statement_timeout,idle_in_transaction_session_timeout",
      `logfile = ${join(dir, "pgbouncer.log")}`,
      "",
    ].join("\n"),
  );
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const uid = Number(execFileSync("id", ["-u", "postgres"]).toString().trim());
    const gid = Number(execFileSync("id", ["-g", "postgres"]).toString().trim());
    for (const f of ["", "userlist.txt", "pgbouncer.ini"]) chownSync(join(dir, f), uid, gid);
  }
  chmodSync(dir, 0o700);
  const ini = join(dir, "pgbouncer.ini");
  const child: ChildProcess = asRoot
    ? spawn("runuser", ["-u", "postgres", "--", PGBOUNCER, ini], { stdio: "ignore" })
    : spawn(PGBOUNCER, [ini], { stdio: "ignore" });
  // Listening once a TCP connection is accepted.
  for (let i = 0; ; i++) {
    const up = await new Promise<boolean>((resolve) => {
      const c = createConnection({ host: "127.0.0.1", port }, () => {
        c.end();
        resolve(true);
      });
      c.once("error", () => resolve(false));
    });
    if (up) break;
    if (child.exitCode !== null || i > 200) throw new Error(`pgbouncer did not start (exit ${child.exitCode})`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const url = new URL(databaseUrl);
  url.port = String(port);
  return {
    url: url.toString(),
    stop: async () => {
      if (child.exitCode === null) {
        child.kill("SIGTERM");
        await new Promise((r) => child.once("exit", r));
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
