#!/usr/bin/env node
// Over 300 lines on purpose: one self-contained script (scenarios, server start, figures) that
// runs from node without a build step.
// `pnpm bench`: engine throughput against a real baton-api on PostgreSQL with default
// durability (fsync on). Not a test: it prints figures (see docs/performance.md).
//
//   node scripts/bench.mjs [--no-build] [--drain N] [--fetch N] [--tree DEPTH] [--external N] [--api N] [--latency N]
//                          [--warmup N] [--max-concurrent N] [--poll MS] [--external-workers K] [--external-batch] [--api-clients C]
//                          [--statements]   (pg_stat_statements: each workload's statements per instance)
//                          [--tick [--ticks K]]   (drive with K concurrent POST /tick loops instead of the pump)
//                          [--retention N]   (N settled trees aged past --retention, pruned while N drain roots run)
//                          [--history N,N,…]   (only the history workload: reads, starts and a drain as the table grows to N)
//                          [--replicas K,K,…]   (only the write ceiling: --drain N and --fetch N roots drained by K replicas)
//                          [--schedules N]   (N schedules firing every minute: fire lag, and a drain beside them; 0 = off)
//                          [--startup [N]]   (only the startup workload: --version, --help and servers on
//                                             PostgreSQL and a fresh PGlite data dir, N runs each, default 5)
//                          [--events N]   (N completions reported to a subscription: delivered/s, lag, the drain beside; 0 = off)
//                          [--flow-keys K] [--flow-rated N] [--flow-rate R]   (flow control: K keys × 10 roots under a
//                                             per-key limit of 1; N roots of a fetch held at R calls/s; 0 = off)
//                          [--validate N,N,…|none]   (POST /definitions/validate of chained definitions of N tasks;
//                                                     default 1000,10000,max — max is the server's task limit)
//
// BENCH_DATABASE_URL=postgres://… uses that server instead of starting one (each run creates
// and drops its own database there). BENCH_SERVER_LOG=<file> keeps the servers' JSON logs,
// BENCH_LOG_LEVEL=debug raises the measured server's level (the engine's per-second stats).
// BENCH_SERVER=<path to main.js> runs another build's server (an A/B against an older commit).
// --otel: tracing on, sampled at 100 %, exported to a loopback OTLP sink (scripts/bench-otel.mjs).
import { execFileSync, spawn } from "node:child_process";
import { appendFileSync, chmodSync, chownSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { Agent, createServer, request as httpRequest } from "node:http";
import { createRequire } from "node:module";
import { createServer as createNetServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { historyRun } from "./bench-history.mjs";
import { replicasRun } from "./bench-replicas.mjs";
import { scheduledDefinition, schedulesLine, schedulesRun } from "./bench-schedules.mjs";
import { startOtlpSink } from "./bench-otel.mjs";
import { startupRun } from "./bench-startup.mjs";
import { eventsDefinition, eventsLine, eventsRun } from "./bench-events.mjs";
import { FLOW_PER_KEY, flowDefinitions, flowLines, preloadKeyed, ratedUpstream, rateFigures } from "./bench-flow.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const apiDir = join(root, "apps/api");
const requireFromApi = createRequire(join(apiDir, "package.json"));
const postgres = requireFromApi("postgres");

const args = process.argv.slice(2);
const flag = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? Number(args[i + 1]) : fallback;
};
const DRAIN_N = flag("--drain", 5000);
const FETCH_N = flag("--fetch", 1000);
// One root spawning a binary tree of child_map children: 2^(DEPTH+1) − 1 instances (12 → 8,191).
const TREE_DEPTH = flag("--tree", 12);
const TREE_N = TREE_DEPTH >= 0 && !Number.isNaN(TREE_DEPTH) ? 2 ** (TREE_DEPTH + 1) - 1 : 0;
const EXTERNAL_N = flag("--external", 5000);
const EXTERNAL_WORKERS = flag("--external-workers", 8);
// --external-batch: each claimed batch is answered by one POST /external-tasks/resolve-batch (the
// extension, docs/api.md "Resolve-batch") instead of one resolve per task.
const EXTERNAL_BATCH = args.includes("--external-batch");
const API_N = flag("--api", 5000);
const API_CLIENTS = flag("--api-clients", 32);
// `latency`: N sequential starts of a 3-fetch process on a server at its default flags.
const LATENCY_N = flag("--latency", 200);
// `retention`: trees of a root and two children, settled and then aged past the retention.
const RETENTION_N = flag("--retention", 2000);
const SCHEDULES_N = flag("--schedules", 10000);
const EVENTS_N = flag("--events", 5000);
// Flow control (scripts/bench-flow.mjs): keys × 10 roots under a per-key limit of 1; roots of a
// fetch held at --flow-rate calls a second. 0 = off.
const FLOW_KEYS = flag("--flow-keys", 1000);
const FLOW_RATED_N = flag("--flow-rated", 2000);
const FLOW_RATE = flag("--flow-rate", 200);
const LATENCY_WARMUP = 20;
// The tree warm-up: a smaller tree of the same shape.
const TREE_WARMUP_DEPTH = Math.min(TREE_DEPTH, 8);
// Roots of each workload run (unmeasured) through the draining server before its timed run, so
// the figures are the steady state of a running service rather than V8 compiling its hot paths.
const WARMUP_N = flag("--warmup", 300);
const TICKERS = flag("--ticks", 3);
// 400 in flight (the server default is 200): fetch throughput is in-flight advances / their latency.
const MAX_CONCURRENT = flag("--max-concurrent", 400);
const MODE = args.includes("--tick") ? "tick" : "pump";
const POLL_MS = flag("--poll", 100);
const BASELINE_N = 2000;
// --statements: pg_stat_statements on the bench's own server; each workload prints its statements per instance.
const STATEMENTS = args.includes("--statements");
// The server's default task limit (DEFAULT_DEFINITION_LIMITS.maxTasks, docs/limits.md).
const MAX_TASKS = 10_000;
// --history 10000,1000000: only the history workload (scripts/bench-history.mjs), at each size.
const HISTORY_SIZES = (() => {
  const i = args.indexOf("--history");
  return i >= 0 ? args[i + 1].split(",").map(Number) : [];
})();
// --replicas 1,2,3,4: only the write ceiling (scripts/bench-replicas.mjs), one run per replica count.
const REPLICA_COUNTS = args.includes("--replicas") ? args[args.indexOf("--replicas") + 1].split(",").map(Number) : [];
// --startup [N]: only the startup workload (scripts/bench-startup.mjs), N runs of each figure.
const STARTUP_RUNS = (() => {
  const i = args.indexOf("--startup");
  if (i < 0) return 0;
  const n = Number(args[i + 1]);
  return Number.isInteger(n) && n > 0 ? n : 5;
})();
const VALIDATE_SIZES = (() => {
  const i = args.indexOf("--validate");
  const spec = i >= 0 ? args[i + 1] : "1000,10000,max";
  if (spec === "none") return [];
  return [...new Set(spec.split(",").map((x) => (x === "max" ? MAX_TASKS : Number(x))))].filter((n) => n > 0);
})();

const cleanups = [];
async function cleanup() {
  while (cleanups.length) {
    try {
      await cleanups.pop()();
    } catch (error) {
      console.error("cleanup:", error.message);
    }
  }
}
process.on("SIGINT", () => cleanup().then(() => process.exit(130)));

function log(...parts) {
  console.error(`[bench ${new Date().toISOString().slice(11, 19)}]`, ...parts);
}

// ---------- PostgreSQL (TOOLCHAIN.md §4, but with default durability) ----------
async function startPostgres() {
  // --history on a database a previous run kept (BENCH_KEEP_DATABASE): measured in place, grown only past its size.
  if (process.env.BENCH_HISTORY_DATABASE) return { url: process.env.BENCH_HISTORY_DATABASE, settings: "existing database (BENCH_HISTORY_DATABASE)" };
  if (process.env.BENCH_DATABASE_URL) {
    const admin = process.env.BENCH_DATABASE_URL;
    const name = `baton_bench_${process.pid}`;
    const sql = postgres(admin, { max: 1, onnotice: () => {} });
    await sql.unsafe(`create database ${name}`);
    await sql.end();
    cleanups.push(async () => {
      // BENCH_KEEP_DATABASE=1 leaves it for a closer look (EXPLAIN on a seeded --history table).
      if (process.env.BENCH_KEEP_DATABASE) return log(`kept database ${name}`);
      const s = postgres(admin, { max: 1, onnotice: () => {} });
      await s.unsafe(`drop database if exists ${name} with (force)`);
      await s.end();
    });
    const url = new URL(admin);
    url.pathname = `/${name}`;
    return { url: url.toString(), settings: "external server (BENCH_DATABASE_URL)" };
  }
  const pgbin = process.env.PGBIN ?? "/usr/lib/postgresql/15/bin";
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), "baton-bench-pg."));
  cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
  const asPostgres = process.getuid?.() === 0;
  if (asPostgres) {
    const uid = Number(execFileSync("id", ["-u", "postgres"]).toString().trim());
    const gid = Number(execFileSync("id", ["-g", "postgres"]).toString().trim());
    chownSync(dir, uid, gid);
    chmodSync(dir, 0o700);
  }
  const run = (bin, binArgs) =>
    asPostgres ? execFileSync("runuser", ["-u", "postgres", "--", join(pgbin, bin), ...binArgs], { stdio: "pipe" }) : execFileSync(join(pgbin, bin), binArgs, { stdio: "pipe" });
  run("initdb", ["-D", join(dir, "data"), "-U", "postgres", "-A", "trust", "-E", "UTF8", "--no-locale"]);
  // Default durability: fsync, synchronous_commit and full_page_writes stay on.
  run("pg_ctl", ["-D", join(dir, "data"), "-l", join(dir, "server.log"), "-w", "-t", "60", "-o", `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c max_connections=200${STATEMENTS ? " -c shared_preload_libraries=pg_stat_statements -c pg_stat_statements.track_planning=on" : ""}`, "start"]);
  cleanups.push(async () => {
    run("pg_ctl", ["-D", join(dir, "data"), "-m", "fast", "-w", "stop"]);
  });
  postmasterPidFile = join(dir, "data", "postmaster.pid");
  run("createdb", ["-h", "127.0.0.1", "-p", String(port), "-U", "postgres", "bench"]);
  const sql = postgres(`postgres://postgres@127.0.0.1:${port}/bench`, { max: 1, onnotice: () => {} });
  if (STATEMENTS) await sql`create extension pg_stat_statements`;
  const [{ fsync, synchronous_commit }] = await sql`select current_setting('fsync') as fsync, current_setting('synchronous_commit') as synchronous_commit`;
  await sql.end();
  return { url: `postgres://postgres@127.0.0.1:${port}/bench`, settings: `PostgreSQL 15 in ${dir}, fsync=${fsync}, synchronous_commit=${synchronous_commit}` };
}

/** CPU seconds (user + system) used so far by these processes, from /proc (0 where unreadable). */
function cpuSeconds(pids) {
  let ticks = 0;
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {}
  }
  return ticks / 100;
}

// The bench's own cluster (its postmaster and that postmaster's children) when it started one, so
// other PostgreSQL servers on a shared machine do not count; every `postgres` process otherwise.
let postmasterPidFile;
function postgresPids() {
  if (postmasterPidFile !== undefined) {
    try {
      const postmaster = Number(readFileSync(postmasterPidFile, "utf8").split("\n")[0]);
      const pids = [postmaster];
      for (const entry of readdirSync("/proc")) {
        if (!/^\d+$/.test(entry)) continue;
        try {
          const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
          if (Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) === postmaster) pids.push(Number(entry));
        } catch {}
      }
      return pids;
    } catch {}
  }
  try {
    return execFileSync("pgrep", ["-x", "postgres"]).toString().trim().split("\n").map(Number);
  } catch {
    return [];
  }
}

function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createNetServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

async function commitBaseline(url) {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  await sql`create table if not exists bench_commit (id serial primary key, v text not null)`;
  for (let i = 0; i < 100; i++) await sql`insert into bench_commit (v) values (${"warm"})`;
  const t0 = performance.now();
  for (let i = 0; i < BASELINE_N; i++) await sql`insert into bench_commit (v) values (${"x"})`;
  const seconds = (performance.now() - t0) / 1000;
  await sql`drop table bench_commit`;
  await sql.end();
  return BASELINE_N / seconds;
}

// ---------- the server ----------
/** A baton-api with the bench's flags (pump off unless `extra` turns it on), or with `defaults` only --db and --http. */
async function startApi(dbUrl, extra = [], defaults = false) {
  const flags = defaults ? [] : ["--poll", "0", "--max-concurrent", String(MAX_CONCURRENT)];
  const child = spawn(process.execPath, [...(process.env.BENCH_SERVER_NODE_ARGS ?? "").split(" ").filter(Boolean), process.env.BENCH_SERVER ?? join(apiDir, "dist/main.js"), "--db", dbUrl, "--http", "127.0.0.1:0", ...flags, ...extra], {
    stdio: ["ignore", "ignore", "pipe"],
    env: { ...process.env, DATABASE_URL: "" },
  });
  let stderr = "";
  const messages = new Map();
  let partial = "";
  // BENCH_SERVER_LOG=<file>: keep the servers' whole stderr (JSON logs) for a closer look.
  if (process.env.BENCH_SERVER_LOG) child.stderr.on("data", (d) => appendFileSync(process.env.BENCH_SERVER_LOG, d));
  child.stderr.on("data", (d) => {
    const lines = (partial + d.toString()).split("\n");
    partial = lines.pop();
    for (const line of lines) {
      const m = /"level":"(\w+)","msg":"([^"]*)"/.exec(line);
      if (m && m[1] !== "info") messages.set(`${m[1]}: ${m[2]}`, (messages.get(`${m[1]}: ${m[2]}`) ?? 0) + 1);
    }
  });
  const url = await new Promise((resolve, reject) => {
    child.stderr.on("data", (d) => {
      stderr += d.toString();
      const m = /"msg":"listening","url":"([^"]+)"/.exec(stderr);
      if (m) resolve(m[1]);
      if (stderr.length > 1e6) stderr = stderr.slice(-1e5);
    });
    child.once("exit", (code) => reject(new Error(`baton-api exited with ${code}:\n${stderr}`)));
  });
  const stop = async () => {
    if (child.exitCode !== null) return;
    child.kill("SIGTERM");
    await new Promise((r) => child.once("exit", r));
  };
  cleanups.push(stop);
  return { url, stop, messages, pid: child.pid };
}

async function call(base, method, path, body) {
  const res = await fetch(new URL(path, base), {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
}

// The api workload's client: node's http with one keep-alive agent. undici's fetch (call above)
// spends about as much CPU per request as the server does, so on 2 cores the bench's own
// client would set the ceiling of a workload whose subject is the server's request rate.
const apiAgent = new Agent({ keepAlive: true, maxSockets: 256 });
cleanups.push(async () => apiAgent.destroy());
function apiCall(base, method, path, body) {
  const url = new URL(path, base);
  const data = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: url.hostname, port: url.port, method, path: url.pathname, agent: apiAgent, headers: data === undefined ? {} : { "content-type": "application/json", "content-length": Buffer.byteLength(data) } },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk) => (text += chunk));
        res.on("end", () => (res.statusCode >= 300 ? reject(new Error(`${method} ${path}: ${res.statusCode} ${text}`)) : resolve(text ? JSON.parse(text) : undefined)));
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(data);
  });
}

async function preload(base, process, n, input = undefined, concurrency = 32) {
  let next = 0;
  const ids = [];
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) {
        next++;
        ids.push((await call(base, "POST", "/api/instances", input === undefined ? { process } : { process, input })).id);
      }
    }),
  );
  return ids;
}

/** Parks preloaded instances (wake_at NULL) so the draining server cannot start them early. */
async function park(sql, process) {
  await sql`update instances set wake_at = null where process = ${process} and status = 'running'`;
}

/** What a workload's measurement starts from: CPU and commit counters. */
async function startMeasure(sql, serverPid) {
  const pgPids = postgresPids();
  return {
    pgPids,
    serverPid,
    // The server's main thread apart: the rest is V8's helper threads (GC, compiling) and libuv's.
    cpu0: { server: cpuSeconds([serverPid]), main: cpuSeconds([`${serverPid}/task/${serverPid}`]), postgres: cpuSeconds(pgPids), bench: processCpu() },
    commits0: await commitCount(sql),
    statements0: STATEMENTS ? await sql`select pg_stat_statements_reset()` : undefined,
  };
}

/** The statements run since startMeasure, per instance, most frequent first (--statements). */
async function printStatements(sql, process, n) {
  const rows = await sql`
    select calls, plans, total_exec_time, total_plan_time, left(regexp_replace(query, '[[:space:]]+', ' ', 'g'), 110) as query from pg_stat_statements
    where query not like '%pg_stat_statements%' and query not like 'select count(*)::int as count from instances%'
    order by calls desc limit 14`;
  for (const r of rows)
    log(
      `${process} statements: ${(Number(r.calls) / n).toFixed(3)}/instance (${(Number(r.plans) / n).toFixed(3)} planned), µs/instance: exec ${((Number(r.total_exec_time) * 1000) / n).toFixed(0)}, plan ${((Number(r.total_plan_time) * 1000) / n).toFixed(0)}: ${r.query}`,
    );
}

/**
 * Waits until `n` instances of `process` are settled (or, with `phase`, sit in that phase). A
 * wait that cannot end says so instead of spinning: instances settled while they should reach
 * `phase`, or nothing changed for WAIT_STUCK_MS (the counts by status, phase and error code).
 */
const WAIT_STUCK_MS = 120_000;
const POLL_EVERY_MS = 250;
async function waitFor(sql, process, n, phase) {
  let last;
  let lastChange = Date.now();
  for (;;) {
    const rows = await sql`
      select status, phase, error_code, count(*)::int as count from instances where process = ${process}
      group by status, phase, error_code`;
    const count = rows
      .filter((r) => (phase ? r.status === "running" && r.phase === phase : !["running", "pausing", "paused", "failing"].includes(r.status)))
      .reduce((a, r) => a + r.count, 0);
    if (count >= n) return;
    const shape = rows.map((r) => `${r.count} ${r.status}/${r.phase ?? "-"}${r.error_code ? ` (${r.error_code})` : ""}`).join(", ");
    if (phase && rows.some((r) => !["running", "pausing", "paused", "failing"].includes(r.status)))
      throw new Error(`${process}: waiting for ${n} in phase ${phase}, but some settled: ${shape}`);
    if (shape !== last) {
      last = shape;
      lastChange = Date.now();
    } else if (Date.now() - lastChange > WAIT_STUCK_MS)
      throw new Error(`${process}: nothing moved for ${WAIT_STUCK_MS / 1000} s waiting for ${n} ${phase ?? "settled"}: ${shape}`);
    // Each poll scans every row of the workload and runs on the bench's PostgreSQL, whose CPU is
    // measured: polled every 25 ms it was a third of a tree run's PostgreSQL CPU, and more the
    // slower the build. The figures come from updated_at, so a coarser poll does not move them.
    await new Promise((r) => setTimeout(r, POLL_EVERY_MS));
  }
}

/** Rate and start→completed percentiles of `process` since t0, with the CPU and commits spent. */
async function finishMeasure(sql, process, n, t0, m) {
  const rows = await sql`select status, updated_at, error_code, left(error_message, 160) as error_message from instances where process = ${process}`;
  const last = Math.max(...rows.map((r) => Number(r.updated_at)));
  const seconds = (last - t0) / 1000;
  const bad = rows.filter((r) => r.status !== "completed");
  // Why instances did not complete, grouped: a figure with failures is not a throughput figure.
  const why = new Map();
  for (const r of bad) {
    const key = `${r.status} ${r.error_code ?? ""}: ${r.error_message ?? ""}`;
    why.set(key, (why.get(key) ?? 0) + 1);
  }
  for (const [key, count] of why) log(`${process}: ${count} × ${key}`);
  // start→completed from the moment the workload was released (t0) to each completing write.
  const latencies = rows.map((r) => Number(r.updated_at) - t0).sort((a, b) => a - b);
  const cpu = {
    server: cpuSeconds([m.serverPid]) - m.cpu0.server,
    main: cpuSeconds([`${m.serverPid}/task/${m.serverPid}`]) - m.cpu0.main,
    postgres: cpuSeconds(m.pgPids) - m.cpu0.postgres,
    bench: processCpu() - m.cpu0.bench,
  };
  const commits = (await commitCount(sql)) - m.commits0;
  if (STATEMENTS) await printStatements(sql, process, n);
  return { seconds, rate: n / seconds, p50: percentile(latencies, 50), p99: percentile(latencies, 99), notCompleted: bad.length, cpu, commits };
}

/**
 * `retention`: the settled bench_retention trees are aged two days (their updated_at moved back
 * by SQL: a bench cannot wait out a retention), then a server with --retention 1d prunes them
 * while its pump drains the parked bench_retention_load roots. Rows/s = rows deleted (from its
 * /metrics, baton_retention_pruned_total) / (last pass that deleted − first pass that deleted).
 */
async function retentionRun(dbUrl, sql, n) {
  await sql`update instances set updated_at = updated_at - ${2 * 86_400_000} where root_id in (select id from instances where process = 'bench_retention')`;
  const [{ rows: treeRows }] = await sql`select count(*)::int as rows from instances i where exists (select 1 from instances r where r.id = i.root_id and r.process = 'bench_retention')`;
  const server = await startApi(dbUrl, ["--retention", "1d", "--poll", String(POLL_MS)]);
  const pruned = async () => {
    const text = await (await fetch(`${server.url}/metrics`)).text();
    const byTable = {};
    for (const m of text.matchAll(/^baton_retention_pruned_total\{table="(\w+)"\} (\S+)$/gm)) byTable[m[1]] = Number(m[2]);
    return byTable;
  };
  const t0 = Date.now();
  await sql`update instances set wake_at = ${t0} where process = 'bench_retention_load' and status = 'running'`;
  let first;
  let last;
  let liveLost = 0;
  for (;;) {
    const [{ left }] = await sql`select count(*)::int as left from instances where process like 'bench_retention%' and process <> 'bench_retention_load'`;
    const byTable = await pruned();
    const total = Object.values(byTable).reduce((a, b) => a + b, 0);
    if (total > 0 && first === undefined) first = { at: Date.now(), total };
    if (left === 0) {
      last = { at: Date.now(), total, byTable };
      break;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  await waitFor(sql, "bench_retention_load", n);
  const [{ loadEnd }] = await sql`select max(updated_at)::bigint as "loadEnd" from instances where process = 'bench_retention_load'`;
  const [{ lost }] = await sql`select (${n}::int - count(*))::int as lost from instances where process = 'bench_retention_load' and status = 'completed'`;
  liveLost = lost;
  await server.stop();
  // The first figure seen already includes the first pass; time runs from the server's first
  // pass (5 s after start) as seen by the first nonzero scrape.
  const seconds = Math.max(0.001, (last.at - first.at) / 1000) + 0.05;
  return {
    trees: n,
    rows: last.total,
    treeRows,
    byTable: last.byTable,
    seconds,
    rowsPerSecond: (last.total - first.total) / seconds,
    loadN: n,
    loadRate: n / ((Number(loadEnd) - t0) / 1000),
    liveLost,
  };
}

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/**
 * Makes every parked instance of `process` due at once and waits until all are settled:
 * `pump` lets the server's own pump (--poll) drain them, `tick` drives concurrent POST /tick loops.
 */
async function drain(base, sql, process, n, mode, serverPid) {
  const m = await startMeasure(sql, serverPid);
  let done = false;
  let ticks = 0;
  const t0 = Date.now();
  await sql`update instances set wake_at = ${t0} where process = ${process} and status = 'running'`;
  const loops =
    mode === "tick"
      ? Array.from({ length: TICKERS }, async () => {
          while (!done) {
            const { count } = await call(base, "POST", "/api/tick", {});
            ticks++;
            // Every slot is busy in another loop's round (or nothing is due): do not spin.
            if (count === 0) await new Promise((r) => setTimeout(r, 5));
          }
        })
      : [];
  await waitFor(sql, process, n);
  done = true;
  await Promise.all(loops);
  return { ...(await finishMeasure(sql, process, n, t0, m)), ticks };
}

/**
 * `external`: the parked roots of `process` are first armed (run to their external task, not
 * measured); then EXTERNAL_WORKERS loops claim up to 20 tasks at a time over the API and resolve
 * each, until every root has completed. Rate = roots / (last completing write − first claim).
 */
async function externalRun(base, sql, process, n, serverPid) {
  await sql`update instances set wake_at = ${Date.now()} where process = ${process} and status = 'running'`;
  await waitFor(sql, process, n, "external");
  const m = await startMeasure(sql, serverPid);
  const t0 = Date.now();
  const claimMs = [];
  const resolveMs = [];
  let resolved = 0;
  let lastResolveAt = Date.now();
  await Promise.all(
    Array.from({ length: EXTERNAL_WORKERS }, async (_, w) => {
      while (resolved < n) {
        let t = performance.now();
        const { items } = await call(base, "POST", "/api/external-tasks/claim", { worker_id: `bench-${w}`, limit: 20, process });
        claimMs.push(performance.now() - t);
        if (items.length === 0) {
          // Nothing claimable yet everything not resolved: an instance left its external phase
          // some other way; say which instead of claiming forever.
          if (Date.now() - lastResolveAt > WAIT_STUCK_MS) await waitFor(sql, process, n - resolved, "external");
          await new Promise((r) => setTimeout(r, 5));
          continue;
        }
        if (EXTERNAL_BATCH) {
          t = performance.now();
          const answer = await call(base, "POST", "/api/external-tasks/resolve-batch", {
            items: items.map((item) => ({ token: item.token, result: { ok: true } })),
          });
          const refused = answer.items.filter((a) => !a.resolved);
          if (refused.length > 0) throw new Error(`resolve-batch refused ${refused.length}: ${JSON.stringify(refused[0])}`);
          resolveMs.push(performance.now() - t);
          resolved += items.length;
          lastResolveAt = Date.now();
          continue;
        }
        for (const item of items) {
          t = performance.now();
          await call(base, "POST", "/api/external-tasks/resolve", { token: item.token, result: { ok: true } });
          resolveMs.push(performance.now() - t);
          resolved++;
          lastResolveAt = Date.now();
        }
      }
    }),
  );
  await waitFor(sql, process, n);
  const calls = (xs) => {
    const sorted = [...xs].sort((a, b) => a - b);
    return { p50: percentile(sorted, 50), p99: percentile(sorted, 99) };
  };
  return { ...(await finishMeasure(sql, process, n, t0, m)), claim: calls(claimMs), resolve: calls(resolveMs) };
}

/**
 * `api`: API_CLIENTS concurrent clients, each alternating POST /instances (a 2-task routing
 * process the pump then runs, so the engine loads the server too) and GET /instances/{id} of
 * an instance started earlier, API_N requests of each kind in all. Latency per request.
 */
async function apiRun(base, sql, process, n, serverPid) {
  const m = await startMeasure(sql, serverPid);
  const ids = [];
  const post = [];
  const get = [];
  let started = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: API_CLIENTS }, async () => {
      while (started < n) {
        started++;
        let t = performance.now();
        const { id } = await apiCall(base, "POST", "/api/instances", { process });
        post.push(performance.now() - t);
        ids.push(id);
        const target = ids[Math.floor(Math.random() * ids.length)];
        t = performance.now();
        await apiCall(base, "GET", `/api/instances/${target}`);
        get.push(performance.now() - t);
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  const stats = (xs) => {
    const sorted = [...xs].sort((a, b) => a - b);
    return { p50: percentile(sorted, 50), p99: percentile(sorted, 99), n: xs.length };
  };
  const requests = post.length + get.length;
  // The engine runs the started instances meanwhile: the CPU and commits are the whole server's, per request.
  const perRequest = (seconds) => (seconds * 1000) / requests;
  const result = {
    seconds,
    post: stats(post),
    get: stats(get),
    requestsPerSecond: requests / seconds,
    serverCpuMs: perRequest(cpuSeconds([serverPid]) - m.cpu0.server),
    postgresCpuMs: perRequest(cpuSeconds(m.pgPids) - m.cpu0.postgres),
    benchCpuMs: perRequest(processCpu() - m.cpu0.bench),
    commitsPerRequest: ((await commitCount(sql)) - m.commits0) / requests,
  };
  if (STATEMENTS && !process.endsWith("_warmup")) await printStatements(sql, "api (per request)", requests);
  return result;
}

/**
 * `latency`: one instance at a time on an otherwise idle server at its default flags: POST
 * /instances of a 3-fetch process, then wait (polling the row every millisecond over the bench's
 * own connection) until it is completed. Client latency = POST sent → completed row seen;
 * server latency = the row's updated_at − created_at (the server's own clock).
 */
async function latencyRun(base, sql, process, n, serverPid) {
  const m = await startMeasure(sql, serverPid);
  const client = [];
  const server = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    const { id } = await call(base, "POST", "/api/instances", { process });
    for (;;) {
      const [row] = await sql`select status, created_at, updated_at from instances where id = ${id}`;
      if (row.status !== "running") {
        if (row.status !== "completed") throw new Error(`latency: instance ${id} ended ${row.status}`);
        client.push(performance.now() - t);
        server.push(Number(row.updated_at) - Number(row.created_at));
        break;
      }
      await new Promise((r) => setTimeout(r, 1));
    }
  }
  const stats = (xs) => {
    const sorted = [...xs].sort((a, b) => a - b);
    return { p50: percentile(sorted, 50), p99: percentile(sorted, 99) };
  };
  // PostgreSQL's CPU includes the bench's own 1 ms polls of the row; the server's is its own.
  const serverCpuMs = ((cpuSeconds([serverPid]) - m.cpu0.server) * 1000) / n;
  if (STATEMENTS && !process.endsWith("_warmup")) await printStatements(sql, process, n);
  return { n, client: stats(client), server: stats(server), serverCpuMs };
}

/**
 * A definition of n chained fetch tasks: each interpolates the previous output into its URL,
 * sends it in its body, exports a counter, retries and routes errors — every checker analysis
 * (typing, output flow, patterns, reachability) has work at every task.
 */
function chainedDefinition(n) {
  const tasks = Array.from({ length: n }, (_, i) => ({
    id: `t${i}`,
    action: {
      type: "fetch",
      url: `https://svc.example.com/step/${i}?prev=\${outputs.t${Math.max(0, i - 1)}.n ?? 0}`,
      body: { i, prev: i > 0 ? `$: outputs.t${i - 1}` : null },
    },
    output: { n: i > 0 ? `$: outputs.t${i - 1}.n + 1` : 0 },
    on_error: [{ code: ["pre.%", "http.5%"], retry: 2 }, ...(i + 1 < n ? [{ code: "http.4%", goto: `$t${n - 1}` }] : [])],
  }));
  return { name: `bench_validate_${n}`, tasks, output: { last: `$: outputs.t${n - 1}.n` } };
}

/** POST /definitions/validate of one chained definition per size: wall time and the server's CPU time. */
async function validateRun(base, sizes, serverPid) {
  // Warm-up (not measured): the checker's code is compiled before the first timed request.
  await call(base, "POST", "/api/definitions/validate", [chainedDefinition(200)]);
  const out = [];
  for (const n of sizes) {
    const body = [chainedDefinition(n)];
    const bytes = JSON.stringify(body).length;
    const cpu0 = cpuSeconds([serverPid]);
    const t0 = performance.now();
    const [result] = await call(base, "POST", "/api/definitions/validate", body);
    const ms = performance.now() - t0;
    if (Object.keys(result.tasks).length !== n) throw new Error(`validate of ${n} tasks answered ${Object.keys(result.tasks).length}`);
    out.push({ n, bytes, ms, cpuMs: (cpuSeconds([serverPid]) - cpu0) * 1000 });
  }
  return out;
}

async function commitCount(sql) {
  const [{ n }] = await sql`select xact_commit::bigint as n from pg_stat_database where datname = current_database()`;
  return Number(n);
}

function processCpu() {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
}

async function main() {
  if (!args.includes("--no-build")) {
    log("building @baton/api");
    execFileSync("pnpm", ["exec", "turbo", "run", "build", "--filter=@baton/api"], { cwd: root, stdio: "ignore" });
  }
  const otel = args.includes("--otel") ? await startOtlpSink() : undefined;
  const pg = await startPostgres();
  log(pg.settings);
  if (STARTUP_RUNS > 0) {
    const apiMain = process.env.BENCH_SERVER ?? join(apiDir, "dist/main.js");
    for (const l of await startupRun({ apiMain, pgUrl: pg.url, postgres, runs: STARTUP_RUNS, log })) console.log(l);
    await cleanup();
    return;
  }
  const baseline = await commitBaseline(pg.url);
  log(`baseline: ${baseline.toFixed(0)} single-row commits/s`);

  const hits = { n: 0 };
  const upstream = createServer((req, res) => {
    hits.n++;
    req.resume();
    req.on("end", () => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ ok: true, n: hits.n }));
    });
  });
  await new Promise((r) => upstream.listen(0, "127.0.0.1", r));
  cleanups.push(() => new Promise((r) => upstream.close(r)));
  const upstreamUrl = `http://127.0.0.1:${upstream.address().port}`;

  if (HISTORY_SIZES.length > 0) {
    const sql = postgres(pg.url, { max: 2, onnotice: () => {} });
    cleanups.push(() => sql.end());
    await historyRun({ pgUrl: pg.url, sql, startApi, call, drain, park, log, upstreamUrl, pollMs: POLL_MS }, HISTORY_SIZES);
    await cleanup();
    return;
  }
  if (REPLICA_COUNTS.length > 0) {
    const sql = postgres(pg.url, { max: 2, onnotice: () => {} });
    cleanups.push(() => sql.end());
    log(`replicas: ${REPLICA_COUNTS.join(", ")} replicas; baseline ${baseline.toFixed(0)} single-row commits/s`);
    const shared = { pgUrl: pg.url, sql, startApi, call, preload, park, waitFor, cpuSeconds, postgresPids, commitCount, log, upstreamUrl, pollMs: POLL_MS };
    await replicasRun(shared, REPLICA_COUNTS, DRAIN_N, FETCH_N);
    await cleanup();
    return;
  }
  // Server A preloads through the API with its pump off; server B (pump on, or /tick loops) drains.
  const loader = await startApi(pg.url, ["--log-level", "info"]);
  const sql = postgres(pg.url, { max: 2, onnotice: () => {} });
  cleanups.push(() => sql.end());
  const drainDef = {
    name: "bench_drain",
    input_schema: { type: "object", properties: {} },
    tasks: [{ id: "first", output: { step: 1 } }, { id: "second", output: "$: outputs.first.step + 1" }],
  };
  // The upstream's answer; declared so the tasks may read into self.result (docs/language.md#schemas).
  const counted = { type: "object", properties: { ok: { type: "boolean" }, n: { type: "integer" } }, required: ["ok", "n"] };
  const fetchDef = {
    name: "bench_fetch",
    tasks: [
      { id: "one", action: { type: "fetch", method: "post", url: `${upstreamUrl}/one`, body: { step: 1 }, result_schema: counted }, output: "$: self.result.n" },
      { id: "two", action: { type: "fetch", method: "post", url: `${upstreamUrl}/two`, body: { prev: "$: outputs.one" }, result_schema: counted }, output: "$: self.result.n" },
      { id: "three", action: { type: "fetch", method: "get", url: `${upstreamUrl}/three`, result_schema: counted }, output: "$: self.result.ok" },
    ],
  };
  // A node ends at depth 0, else spawns two children of itself one level down (the process names
  // itself as the child, so each copy's tree stays within its own name).
  const treeDef = (name) => ({
    name,
    input_schema: { type: "object", properties: { depth: { type: "integer" } }, required: ["depth"] },
    tasks: [
      { id: "leaf", switch: [{ case: "input.depth <= 0", goto: "end" }, { goto: "$split" }] },
      {
        id: "split",
        action: { type: "child_map", children: { l: { name, input: { depth: "$: input.depth - 1" } }, r: { name, input: { depth: "$: input.depth - 1" } } } },
      },
    ],
  });
  // The warm-up runs copies under their own names, so each timed run counts only its own roots.
  for (const def of [drainDef, fetchDef]) {
    await call(loader.url, "PUT", "/api/definitions", def);
    await call(loader.url, "PUT", "/api/definitions", { ...def, name: `${def.name}_warmup` });
  }
  for (const name of ["bench_latency", "bench_latency_warmup"]) await call(loader.url, "PUT", "/api/definitions", { ...fetchDef, name });
  for (const name of ["bench_tree", "bench_tree_warmup"]) await call(loader.url, "PUT", "/api/definitions", treeDef(name));
  await call(loader.url, "PUT", "/api/definitions", { ...drainDef, name: "bench_retention_leaf" });
  await call(loader.url, "PUT", "/api/definitions", {
    name: "bench_retention",
    tasks: [{ id: "kids", action: { type: "child_map", children: { a: { name: "bench_retention_leaf" }, b: { name: "bench_retention_leaf" } } } }],
  });
  await call(loader.url, "PUT", "/api/definitions", { ...drainDef, name: "bench_retention_load" });
  for (const def of [scheduledDefinition(drainDef), { ...drainDef, name: "bench_schedules_drain" }, eventsDefinition(drainDef)])
    await call(loader.url, "PUT", "/api/definitions", def);
  const rated = await ratedUpstream();
  cleanups.push(rated.close);
  for (const def of flowDefinitions(drainDef, FLOW_RATE, rated.url)) await call(loader.url, "PUT", "/api/definitions", def);
  const externalDef = {
    name: "bench_external",
    tasks: [{ id: "ask", action: { type: "external", result_schema: { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] } } }],
    output: { ok: "$: outputs.ask.ok" },
  };
  for (const def of [externalDef, { ...externalDef, name: "bench_external_warmup" }, { ...drainDef, name: "bench_api" }, { ...drainDef, name: "bench_api_warmup" }]) {
    await call(loader.url, "PUT", "/api/definitions", def);
  }
  for (const [process, n, input] of [
    ["bench_drain_warmup", DRAIN_N > 0 ? WARMUP_N : 0],
    ["bench_drain", DRAIN_N],
    ["bench_fetch_warmup", FETCH_N > 0 ? WARMUP_N : 0],
    ["bench_fetch", FETCH_N],
    ["bench_tree_warmup", TREE_N > 0 ? 1 : 0, { depth: TREE_WARMUP_DEPTH }],
    ["bench_tree", TREE_N > 0 ? 1 : 0, { depth: TREE_DEPTH }],
    ["bench_external_warmup", EXTERNAL_N > 0 ? WARMUP_N : 0],
    ["bench_external", EXTERNAL_N],
    ["bench_retention", RETENTION_N],
    ["bench_retention_load", RETENTION_N],
    ["bench_schedules_drain", SCHEDULES_N > 0 ? DRAIN_N : 0],
    ["bench_events", EVENTS_N],
    ["bench_flow_rated", FLOW_RATED_N],
  ]) {
    if (n === 0) continue;
    log(`${process}: preloading ${n} roots through POST /instances (--poll 0)`);
    const t = Date.now();
    await preload(loader.url, process, n, input);
    await park(sql, process);
    log(`${process}: preloaded in ${((Date.now() - t) / 1000).toFixed(1)} s`);
  }
  if (FLOW_KEYS > 0) {
    log(`bench_flow_keyed: preloading ${FLOW_KEYS} keys × ${FLOW_PER_KEY} roots (--poll 0)`);
    await preloadKeyed(call, loader.url, FLOW_KEYS);
    await park(sql, "bench_flow_keyed");
  }
  await loader.stop();

  const api = await startApi(pg.url, ["--log-level", process.env.BENCH_LOG_LEVEL ?? "info", ...(MODE === "pump" ? ["--poll", String(POLL_MS)] : [])]);
  const results = [];
  for (const [process, n] of [
    ["bench_drain_warmup", DRAIN_N > 0 ? WARMUP_N : 0],
    ["bench_fetch_warmup", FETCH_N > 0 ? WARMUP_N : 0],
    ["bench_tree_warmup", TREE_N > 0 ? 2 ** (TREE_WARMUP_DEPTH + 1) - 1 : 0],
  ]) {
    if (n === 0) continue;
    log(`warm-up: ${n} instances of ${process} (not measured)`);
    await drain(api.url, sql, process, n, MODE, api.pid);
  }
  if (DRAIN_N > 0) {
    log(`drain: releasing ${DRAIN_N} roots (${MODE})`);
    results.push({ workload: "drain", n: DRAIN_N, ...(await drain(api.url, sql, "bench_drain", DRAIN_N, MODE, api.pid)) });
  }
  if (FETCH_N > 0) {
    hits.n = 0;
    log(`fetch: releasing ${FETCH_N} roots (${MODE})`);
    results.push({ workload: "fetch", n: FETCH_N, ...(await drain(api.url, sql, "bench_fetch", FETCH_N, MODE, api.pid)), upstreamCalls: hits.n });
  }
  if (TREE_N > 0) {
    log(`tree: releasing one root of depth ${TREE_DEPTH} (${TREE_N} instances, ${MODE})`);
    results.push({ workload: "tree", n: TREE_N, ...(await drain(api.url, sql, "bench_tree", TREE_N, MODE, api.pid)) });
  }
  if (EXTERNAL_N > 0) {
    log(`warm-up: ${WARMUP_N} external tasks of bench_external_warmup (not measured)`);
    await externalRun(api.url, sql, "bench_external_warmup", WARMUP_N, api.pid);
    log(`external: arming ${EXTERNAL_N} roots, then ${EXTERNAL_WORKERS} workers claim and resolve them`);
    results.push({ workload: EXTERNAL_BATCH ? "external-batch" : "external", n: EXTERNAL_N, ...(await externalRun(api.url, sql, "bench_external", EXTERNAL_N, api.pid)) });
  }
  let apiResult;
  if (API_N > 0) {
    log(`warm-up: ${WARMUP_N} × (POST /instances + GET /instances/{id}) (not measured)`);
    await apiRun(api.url, sql, "bench_api_warmup", WARMUP_N, api.pid);
    log(`api: ${API_N} × (POST /instances + GET /instances/{id}) from ${API_CLIENTS} concurrent clients`);
    apiResult = await apiRun(api.url, sql, "bench_api", API_N, api.pid);
  }
  let validateResult = [];
  if (VALIDATE_SIZES.length > 0) {
    log(`validate: POST /definitions/validate of chained definitions of ${VALIDATE_SIZES.join(", ")} tasks`);
    validateResult = await validateRun(api.url, VALIDATE_SIZES, api.pid);
  }
  if (RETENTION_N > 0) {
    log(`retention: running ${RETENTION_N} trees to the end (not measured)`);
    await drain(api.url, sql, "bench_retention", RETENTION_N, MODE, api.pid);
  }
  let schedulesResult;
  if (SCHEDULES_N > 0) {
    log(`schedules: ${SCHEDULES_N} schedules firing every minute, ${DRAIN_N} drain roots released beside them`);
    const drainBeside = (process, n) => drain(api.url, sql, process, n, MODE, api.pid).then((r) => ({ n, ...r }));
    schedulesResult = await schedulesRun({ call, sql, base: api.url, n: SCHEDULES_N, drainProcess: "bench_schedules_drain", drainN: DRAIN_N, drain: drainBeside, log });
  }
  let eventsResult;
  if (EVENTS_N > 0) {
    log(`events: ${EVENTS_N} roots released with a subscription to their completions`);
    const drainBeside = (process, n) => drain(api.url, sql, process, n, MODE, api.pid).then((r) => ({ n, ...r }));
    eventsResult = await eventsRun({ call, base: api.url, n: EVENTS_N, drain: drainBeside, log });
  }
  let keyedResult;
  if (FLOW_KEYS > 0) {
    log(`flow-keyed: releasing ${FLOW_KEYS * FLOW_PER_KEY} roots, ${FLOW_KEYS} keys under a per-key limit of 1`);
    keyedResult = { n: FLOW_KEYS * FLOW_PER_KEY, ...(await drain(api.url, sql, "bench_flow_keyed", FLOW_KEYS * FLOW_PER_KEY, MODE, api.pid)) };
  }
  let ratedResult;
  if (FLOW_RATED_N > 0) {
    log(`flow-rated: releasing ${FLOW_RATED_N} roots of one fetch under rate_limit ${FLOW_RATE}/1s`);
    rated.stamps.length = 0;
    const r = await drain(api.url, sql, "bench_flow_rated", FLOW_RATED_N, MODE, api.pid);
    ratedResult = { n: FLOW_RATED_N, ...r, figures: rateFigures(rated.stamps) };
  }
  const messages = api.messages;
  await api.stop();
  let retentionResult;
  if (RETENTION_N > 0) retentionResult = await retentionRun(pg.url, sql, RETENTION_N);
  let latencyResult;
  if (LATENCY_N > 0) {
    // Its own server at the default flags (no --poll, no --max-concurrent): what one user sees.
    const idle = await startApi(pg.url, [], true);
    log(`latency: ${LATENCY_N} sequential starts of a 3-fetch process (after ${LATENCY_WARMUP} not measured)`);
    await latencyRun(idle.url, sql, "bench_latency_warmup", LATENCY_WARMUP, idle.pid);
    latencyResult = await latencyRun(idle.url, sql, "bench_latency", LATENCY_N, idle.pid);
    for (const [message, count] of idle.messages) messages.set(message, (messages.get(message) ?? 0) + count);
  }
  await cleanup();

  console.log("");
  console.log(`PostgreSQL: ${pg.settings}`);
  console.log(
    `machine: ${(await import("node:os")).cpus().length} cores, node ${process.version}; --max-concurrent ${MAX_CONCURRENT}, ` +
      (MODE === "pump" ? `pump with --poll ${POLL_MS}` : `${TICKERS} concurrent /tick loops`) +
      `; each workload after a warm-up of ${WARMUP_N} roots`,
  );
  console.log(`baseline  ${baseline.toFixed(0).padStart(7)} single-row commits/s`);
  for (const r of results) {
    console.log(
      `${r.workload.padEnd(8)} ${r.rate.toFixed(0).padStart(7)} instances/s  (${r.n} in ${r.seconds.toFixed(2)} s, ${(r.rate / baseline).toFixed(2)}× baseline)  start→completed p50 ${r.p50} ms, p99 ${r.p99} ms` +
        (r.upstreamCalls !== undefined ? `, upstream calls ${r.upstreamCalls}` : "") +
        (r.claim !== undefined ? `; claim call p50 ${r.claim.p50.toFixed(1)} / p99 ${r.claim.p99.toFixed(1)} ms, ${r.workload === "external-batch" ? "resolve-batch call (20 items)" : "resolve call"} p50 ${r.resolve.p50.toFixed(1)} / p99 ${r.resolve.p99.toFixed(1)} ms` : "") +
        `; ${(r.commits / r.n).toFixed(2)} commits/instance (incl. the bench's polls)` +
        `; CPU ms/instance: server ${((r.cpu.server * 1000) / r.n).toFixed(3)} (main thread ${((r.cpu.main * 1000) / r.n).toFixed(3)}), postgres ${((r.cpu.postgres * 1000) / r.n).toFixed(3)}, bench+upstream ${((r.cpu.bench * 1000) / r.n).toFixed(3)}` +
        (r.notCompleted ? `, NOT COMPLETED ${r.notCompleted}` : ""),
    );
  }
  if (apiResult !== undefined) {
    // One commit's latency on this machine, so request latencies read as a ratio too.
    const commitMs = 1000 / baseline;
    const line = (name, st) => `${name} p50 ${st.p50.toFixed(1)} ms (${(st.p50 / commitMs).toFixed(1)}× one commit), p99 ${st.p99.toFixed(1)} ms (${(st.p99 / commitMs).toFixed(1)}×)`;
    console.log(
      `api      ${apiResult.requestsPerSecond.toFixed(0).padStart(7)} requests/s  (${apiResult.post.n + apiResult.get.n} from ${API_CLIENTS} clients in ${apiResult.seconds.toFixed(2)} s)  ` +
        `${line("POST /instances", apiResult.post)}; ${line("GET /instances/{id}", apiResult.get)}; ` +
        `CPU ms/request: server ${apiResult.serverCpuMs.toFixed(3)}, postgres ${apiResult.postgresCpuMs.toFixed(3)}, bench ${apiResult.benchCpuMs.toFixed(3)}; ` +
        `${apiResult.commitsPerRequest.toFixed(2)} commits/request`,
    );
  }
  if (latencyResult !== undefined) {
    console.log(
      `latency  ${String(latencyResult.n).padStart(7)} sequential 3-fetch instances at default flags: POST → completed seen p50 ${latencyResult.client.p50.toFixed(1)} ms, p99 ${latencyResult.client.p99.toFixed(1)} ms; ` +
        `created_at → completing write p50 ${latencyResult.server.p50} ms, p99 ${latencyResult.server.p99} ms; server CPU ${latencyResult.serverCpuMs.toFixed(2)} ms/instance`,
    );
  }
  if (retentionResult !== undefined) {
    const r = retentionResult;
    console.log(
      `retention ${r.rowsPerSecond.toFixed(0).padStart(6)} rows/s pruned  (${r.rows} rows of ${r.trees} settled trees: ${JSON.stringify(r.byTable)}, in ${r.seconds.toFixed(2)} s, ` +
        `while the same server ran ${r.loadN} drain roots at ${r.loadRate.toFixed(0)} instances/s); live rows lost: ${r.liveLost}`,
    );
  }
  for (const line of flowLines(keyedResult, ratedResult, FLOW_RATE, results.find((r) => r.workload === "drain")?.rate)) console.log(line);
  if (eventsResult !== undefined) console.log(eventsLine(eventsResult, results.find((r) => r.workload === "drain")?.rate));
  if (schedulesResult !== undefined) console.log(schedulesLine(schedulesResult, results.find((r) => r.workload === "drain")?.rate));
  for (const v of validateResult)
    console.log(
      `validate ${String(v.n).padStart(7)} tasks${v.n === MAX_TASKS ? " (the maximum)" : ""}: ${v.ms.toFixed(0)} ms for the request ` +
        `(${(v.bytes / 1024).toFixed(0)} KiB), server CPU ${v.cpuMs.toFixed(0)} ms`,
    );
  for (const [message, count] of messages) console.log(`server log: ${count} × ${message}`);
  if (otel !== undefined) {
    console.log(otel.line());
    await otel.close();
  }
}

main().catch(async (error) => {
  console.error(error);
  await cleanup();
  process.exit(1);
});
