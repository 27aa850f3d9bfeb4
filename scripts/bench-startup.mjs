// `pnpm bench --startup [N]` (docs/performance.md "Start-up"): how long a baton-api process takes
// before it is useful, N runs of each (5 by default), as whole processes:
//   - `--version` and `--help`: spawn → exit;
//   - a server on PostgreSQL (a fresh database each run, then restarted on it): spawn →
//     `listening` → /healthz 200;
//   - a server on a fresh PGlite data directory (an empty one each run), then restarted on it.
// For each: wall time (median, min–max), CPU (user + system) and peak RSS of the server process.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";

/** The bench's environment without DATABASE_URL: the server uses exactly the --db or --data-dir given. */
function serverEnv() {
  const env = { ...process.env };
  delete env.DATABASE_URL;
  return env;
}

/** CPU ms and peak RSS MiB of a live process, from /proc. */
function usageOf(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return { cpuMs: (Number(fields[11]) + Number(fields[12])) * 10, peakMiB: hwm ? Number(hwm[1]) / 1024 : NaN };
}

/** A command that exits by itself: wall ms, and its own CPU and peak RSS reported from its exit hook. */
function timeCommand(apiMain, preload, args) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, ["--require", preload, apiMain, ...args], {
      stdio: ["ignore", "ignore", "pipe"],
      env: serverEnv(),
    });
    let stderr = "";
    child.stderr.on("data", (d) => (stderr += d));
    child.once("exit", (code) => {
      const wallMs = performance.now() - t0;
      const m = /BENCH_USAGE (\{.*\})/.exec(stderr);
      if (code !== 0 || !m) return reject(new Error(`baton-api ${args.join(" ")} exited ${code}:\n${stderr}`));
      const u = JSON.parse(m[1]);
      resolve({ wallMs, cpuMs: (u.userCPUTime + u.systemCPUTime) / 1000, peakMiB: u.maxRSS / 1024 });
    });
  });
}

/** A server until /healthz answers 200: wall ms to `listening` and to that answer, its CPU and peak RSS then. */
async function timeServer(apiMain, dbArgs) {
  const t0 = performance.now();
  const child = spawn(process.execPath, [apiMain, ...dbArgs, "--http", "127.0.0.1:0"], {
    stdio: ["ignore", "ignore", "pipe"],
    env: serverEnv(),
  });
  let stderr = "";
  const url = await new Promise((resolve, reject) => {
    child.stderr.on("data", (d) => {
      stderr += d;
      const m = /"msg":"listening","url":"([^"]+)"/.exec(stderr);
      if (m) resolve(m[1]);
    });
    child.once("exit", (code) => reject(new Error(`baton-api exited ${code} before listening:\n${stderr}`)));
  });
  const listeningMs = performance.now() - t0;
  for (;;) {
    const res = await fetch(`${url}/healthz`).catch(() => undefined);
    if (res?.status === 200) break;
    await new Promise((r) => setTimeout(r, 5));
  }
  const wallMs = performance.now() - t0;
  const usage = usageOf(child.pid);
  child.removeAllListeners("exit");
  const exited = new Promise((r) => child.once("exit", r));
  child.kill("SIGTERM");
  await exited;
  return { listeningMs, wallMs, ...usage };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
function line(what, runs) {
  const walls = runs.map((r) => r.wallMs);
  const listening = runs[0].listeningMs === undefined ? "" : `, listening p50 ${median(runs.map((r) => r.listeningMs)).toFixed(0)} ms`;
  return (
    `startup ${what.padEnd(44)} wall p50 ${median(walls).toFixed(0)} ms (${Math.min(...walls).toFixed(0)}–${Math.max(...walls).toFixed(0)})${listening}, ` +
    `CPU p50 ${median(runs.map((r) => r.cpuMs)).toFixed(0)} ms, peak RSS p50 ${median(runs.map((r) => r.peakMiB)).toFixed(0)} MiB (${runs.length} runs)`
  );
}

/** Runs the startup workload and returns its lines (one per figure, then the load average). */
export async function startupRun({ apiMain, pgUrl, postgres, runs, log }) {
  const dir = mkdtempSync(join(tmpdir(), "baton-bench-startup-"));
  const preload = join(dir, "usage.cjs");
  writeFileSync(
    preload,
    `process.on("exit", () => process.stderr.write("BENCH_USAGE " + JSON.stringify(process.resourceUsage()) + "\\n"));\n`,
  );
  const lines = [];
  const before = loadavg();
  try {
    for (const args of [["--version"], ["--help"]]) {
      await timeCommand(apiMain, preload, args); // unmeasured: the file cache
      const measured = [];
      for (let i = 0; i < runs; i++) measured.push(await timeCommand(apiMain, preload, args));
      lines.push(line(args.join(" "), measured));
    }
    log(`startup: ${runs} servers on fresh PostgreSQL databases, each restarted once`);
    const admin = postgres(pgUrl, { max: 1, onnotice: () => {} });
    try {
      const pg = [];
      const pgAgain = [];
      for (let i = 0; i <= runs; i++) {
        const name = `baton_bench_startup_${process.pid}_${i}`;
        await admin.unsafe(`create database ${name}`);
        const url = new URL(pgUrl);
        url.pathname = `/${name}`;
        try {
          const r = await timeServer(apiMain, ["--db", url.toString()]);
          const again = await timeServer(apiMain, ["--db", url.toString()]);
          // The first is unmeasured: the file cache.
          if (i > 0) {
            pg.push(r);
            pgAgain.push(again);
          }
        } finally {
          await admin.unsafe(`drop database if exists ${name} with (force)`);
        }
      }
      lines.push(line("server on PostgreSQL, fresh database", pg));
      lines.push(line("server on PostgreSQL, restarted on it", pgAgain));
    } finally {
      await admin.end();
    }
    log(`startup: ${runs} servers on fresh PGlite data directories, each restarted once`);
    const fresh = [];
    const again = [];
    for (let i = 0; i < runs; i++) {
      const data = join(dir, `data-${i}`);
      fresh.push(await timeServer(apiMain, ["--data-dir", data]));
      again.push(await timeServer(apiMain, ["--data-dir", data]));
      rmSync(data, { recursive: true, force: true });
    }
    lines.push(line("server on a fresh PGlite data directory", fresh));
    lines.push(line("server on PGlite, restarted on that directory", again));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const after = loadavg();
  lines.push(`startup load average before ${before.map((x) => x.toFixed(1)).join(" ")}, after ${after.map((x) => x.toFixed(1)).join(" ")}`);
  return lines;
}
