#!/usr/bin/env node
// Over 300 lines on purpose: one self-contained drill (cluster, load, faults, checks) that runs
// from node without a build step of its own.
// The Patroni drills (docs/deploy.md "High availability"): a three-node Patroni cluster of
// PostgreSQL 15 with one etcd, all on loopback in a temporary directory, and K baton-api replicas
// on one multi-host URL with target_session_attrs=read-write. Roots of a process with a fetch, a
// delay and an only_once fetch are started all the time (each start with an Idempotency-Key,
// retried through any replica until answered). Then, in turn:
//   (a) failover: the primary's node dies (kill -9 of its Patroni, its postmaster and every
//       backend) while instances run; Patroni promotes the synchronous standby after `ttl`;
//       the dead node is then started again and rejoins as a standby (pg_rewind);
//   (b) switchover: `patronictl switchover --force` while instances run.
// After each it asserts the chaos invariants: every acknowledged start is exactly one instance
// and settles completed (nothing lost, nothing started twice), no task was entered twice (one
// task.started log line per task per instance), the only_once upstream saw each instance at most
// once and exactly once where the instance says it charged, every replica is the process it was
// (no restart) and answers /healthz and a start; and it prints the time to recovery.
//
//   node scripts/patroni-drill.mjs [--replicas K (2)] [--rate starts/s (8)] [--async] [--keep]
//
// --async runs Patroni without synchronous_mode: then a failover may lose acknowledged commits,
// and the drill reports what was lost instead of failing on it. Needs root (PostgreSQL, etcd and
// Patroni run as the `postgres` user), Debian's `patroni` and `etcd-server`, PostgreSQL 15 in
// PGBIN (/usr/lib/postgresql/15/bin), and a built server (pnpm exec turbo run build --filter=@baton/api).
import { execFileSync, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { chownSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { createRequire } from "node:module";
import { createServer as createNetServer } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const postgres = createRequire(join(root, "apps/api/package.json"))("postgres");
const args = process.argv.slice(2);
const flag = (name, fallback) => (args.includes(name) ? Number(args[args.indexOf(name) + 1]) : fallback);
const REPLICAS = flag("--replicas", 2);
const RATE = flag("--rate", 8);
const ASYNC = args.includes("--async");
const PGBIN = process.env.PGBIN ?? "/usr/lib/postgresql/15/bin";
// Patroni's timing: a leader key lives `ttl` s unless renewed every `loop_wait` s; retries of
// etcd and PostgreSQL give up after `retry_timeout` s (loop_wait + 2 × retry_timeout ≤ ttl).
// Shorter than the defaults (30/10/10) so the drill is quick; docs/deploy.md says what scales.
const TTL = 20;
const LOOP_WAIT = 2;
const RETRY_TIMEOUT = 5;
const NODES = ["n1", "n2", "n3"];

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const t0 = Date.now();
const log = (...parts) => console.error(`[drill ${((Date.now() - t0) / 1000).toFixed(1).padStart(6)} s]`, ...parts);
const failures = [];
const check = (ok, what) => {
  if (!ok) failures.push(what);
  log(`${ok ? "ok  " : "FAIL"} ${what}`);
};

const uid = Number(execFileSync("id", ["-u", "postgres"]).toString());
const gid = Number(execFileSync("id", ["-g", "postgres"]).toString());
const R = mkdtempSync("/tmp/baton-patroni.");
chownSync(R, uid, gid);
const children = [];
/** A process as the postgres user, its output in R/<name>.log. */
function runAsPostgres(name, cmd, argv) {
  const out = openSync(join(R, `${name}.log`), "a");
  const child = spawn(cmd, argv, { uid, gid, cwd: R, stdio: ["ignore", out, out], env: { PATH: process.env.PATH, HOME: R, LANG: "C.UTF-8" } });
  children.push(child);
  return child;
}
async function cleanup() {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
  for (const n of NODES) killNode(n);
  await sleep(300);
  if (!args.includes("--keep")) rmSync(R, { recursive: true, force: true });
  else log(`kept ${R}`);
}

// Below the kernel's ephemeral range (32768+), where a client connection of another process on a
// busy machine cannot take a port between its probe here and the server binding it.
const taken = new Set();
async function freePort() {
  for (;;) {
    const port = 20000 + Math.floor(Math.random() * 12000);
    if (taken.has(port)) continue;
    const free = await new Promise((resolve) => {
      const probe = createNetServer();
      probe.once("error", () => resolve(false));
      probe.listen(port, "127.0.0.1", () => probe.close(() => resolve(true)));
    });
    if (free) {
      taken.add(port);
      return port;
    }
  }
}

async function getJson(url, init = {}) {
  const res = await fetch(url, { ...init, signal: AbortSignal.timeout(5000) });
  const text = await res.text();
  let body;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = text;
  }
  return { status: res.status, body };
}

// ---------- etcd and Patroni ----------
const ports = { etcd: await freePort(), peer: await freePort() };
const node = {};
for (const n of NODES) node[n] = { pg: await freePort(), rest: await freePort(), dir: join(R, n) };
const namespace = `/baton-drill-${process.pid}/`;

function patroniYaml(n) {
  const { pg, rest, dir } = node[n];
  return `scope: baton
namespace: ${namespace}
name: ${n}
restapi:
  listen: 127.0.0.1:${rest}
  connect_address: 127.0.0.1:${rest}
etcd3:
  hosts: 127.0.0.1:${ports.etcd}
bootstrap:
  dcs:
    ttl: ${TTL}
    loop_wait: ${LOOP_WAIT}
    retry_timeout: ${RETRY_TIMEOUT}
    maximum_lag_on_failover: 1048576
    synchronous_mode: ${ASYNC ? "false" : "true"}
    postgresql:
      use_pg_rewind: true
      parameters:
        wal_log_hints: "on"
        max_connections: 100
  initdb:
    - encoding: UTF8
postgresql:
  listen: 127.0.0.1:${pg}
  connect_address: 127.0.0.1:${pg}
  data_dir: ${dir}
  bin_dir: ${PGBIN}
  pgpass: ${dir}.pgpass
  authentication:
    superuser:
      username: postgres
    replication:
      username: postgres
    rewind:
      username: postgres
  parameters:
    unix_socket_directories: ${R}
  pg_hba:
    - local all all trust
    - host replication all 127.0.0.1/32 trust
    - host all all 127.0.0.1/32 trust
`;
}

function startPatroni(n) {
  node[n].patroni = runAsPostgres(n, "patroni", [join(R, `${n}.yml`)]);
}

/** The pids of a process's children, from /proc. */
function childPids(pid) {
  const out = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      if (Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) === pid) out.push(Number(entry));
    } catch {}
  }
  return out;
}

/** The node dies: kill -9 of its Patroni, its postmaster and every backend, at once. */
function killNode(n) {
  const pids = [];
  if (node[n].patroni?.exitCode === null) pids.push(node[n].patroni.pid);
  try {
    const postmaster = Number(readFileSync(join(node[n].dir, "postmaster.pid"), "utf8").split("\n")[0]);
    if (postmaster > 0) pids.push(postmaster, ...childPids(postmaster));
  } catch {}
  for (const pid of pids) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {}
  }
  return pids.length;
}

/** Patroni's view of the cluster from any node that answers. */
async function cluster() {
  for (const n of NODES) {
    try {
      const { status, body } = await getJson(`http://127.0.0.1:${node[n].rest}/cluster`);
      if (status === 200 && body?.members) return body.members;
    } catch {}
  }
  return [];
}
const leaderOf = (members) => members.find((m) => m.role === "leader" && m.state === "running")?.name;

async function waitCluster(what, ok, ms = 180_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const members = await cluster();
    if (ok(members)) return members;
    if (Date.now() > deadline) throw new Error(`${what}: not reached in ${ms / 1000} s: ${JSON.stringify(members)}`);
    await sleep(250);
  }
}
const healthy = (members, count) =>
  leaderOf(members) !== undefined &&
  // Patroni 3.0.2 says "running" of a standby that streams (later versions say "streaming").
  members.filter((m) => m.role !== "leader" && (m.state === "running" || m.state === "streaming")).length === count - 1 &&
  (ASYNC || members.some((m) => m.role === "sync_standby"));

// ---------- the upstream and the replicas ----------
const hits = [];
const upstream = createServer((req, res) => {
  req.resume();
  req.on("end", async () => {
    // A little latency, so a fault lands while calls are in flight.
    await sleep(Math.floor(Math.random() * 40));
    hits.push({ path: req.url, key: String(req.headers["idempotency-key"] ?? ""), at: Date.now() });
    res.writeHead(200, { "content-type": "application/json" });
    res.end('{"ok":true}');
  });
});
// Idle keep-alive sockets stay open longer than the engine's agent keeps them (4 s,
// engine/fetch/http-call.ts): with Node's default of 5 s, a socket left idle through an outage
// could be closed by this server just as the engine reused it, and the only_once call on it then
// fails with http.disconnected (correctly never retried) — an upstream's fault, not the failover's.
upstream.keepAliveTimeout = 120_000;
upstream.headersTimeout = 121_000;
await new Promise((r) => upstream.listen(0, "127.0.0.1", r));
const up = `http://127.0.0.1:${upstream.address().port}`;

const hosts = NODES.map((n) => `127.0.0.1:${node[n].pg}`).join(",");
const DB_URL = `postgres://postgres@${hosts}/postgres?target_session_attrs=read-write`;
const replicas = [];
async function startReplica(i) {
  const out = openSync(join(R, `baton-${i}.log`), "a");
  const child = spawn(process.execPath, [join(root, "apps/api/dist/main.js"), "--db", DB_URL, "--http", "127.0.0.1:0", "--poll", "100"], {
    stdio: ["ignore", "ignore", "pipe"],
    env: { ...process.env, DATABASE_URL: "" },
  });
  children.push(child);
  let err = "";
  const url = await new Promise((resolve, reject) => {
    child.stderr.on("data", (d) => {
      writeFileSync(out, d);
      if (err.length < 1e5) err += d;
      const m = /"msg":"listening","url":"([^"]+)"/.exec(err);
      if (m) resolve(m[1]);
    });
    child.once("exit", (code) => reject(new Error(`baton-api ${i} exited with ${code}: ${err.slice(-2000)}`)));
  });
  replicas.push({ i, url, child, pid: child.pid });
}

const DEFINITION = {
  name: "patroni_drill",
  input_schema: { type: "object", properties: { n: { type: "integer" } }, required: ["n"] },
  tasks: [
    { id: "step", action: { type: "fetch", method: "POST", url: `${up}/step` } },
    { id: "nap", action: { type: "delay", for: 300 } },
    {
      id: "charge",
      only_once: true,
      action: { type: "fetch", method: "POST", url: `${up}/charge` },
      on_error: [{ code: ["only_once.interrupted"], goto: "$after" }],
    },
    { id: "after", output: "$: error == null ? 'charged' : error.code" },
  ],
  output: { charge: "$: outputs.after" },
};

const started = new Map(); // Idempotency-Key → instance id
let acknowledgedAfter = []; // times of acknowledged starts, for the first write after a fault
async function startOne(n) {
  const key = randomUUID();
  for (;;) {
    const r = replicas[Math.floor(Math.random() * replicas.length)];
    try {
      const res = await getJson(`${r.url}/api/instances`, {
        method: "POST",
        headers: { "content-type": "application/json", "idempotency-key": key },
        body: JSON.stringify({ process: DEFINITION.name, input: { n } }),
      });
      if (res.status < 300) {
        started.set(key, res.body.id);
        acknowledgedAfter.push(Date.now());
        return;
      }
      // 503 is the documented answer while no node accepts writes; anything else is a finding.
      if (res.status !== 503) check(false, `start answered ${res.status} (only 503 is expected in an outage): ${JSON.stringify(res.body)}`);
    } catch {
      // The request failed with the connection: retry with the same key.
    }
    await sleep(200);
  }
}

let loading = false;
let loadLoop;
function startLoad() {
  loading = true;
  let n = started.size;
  // Four loops, so one start retried through an outage does not stop the others' pace.
  loadLoop = Promise.all(
    Array.from({ length: 4 }, async () => {
      while (loading) {
        await startOne(n++);
        await sleep(4000 / RATE);
      }
    }),
  );
}
async function stopLoad() {
  loading = false;
  await loadLoop;
}

/** Polls every replica's /healthz from a fault on: per replica, the first 200 after its last failure. */
function watchHealth() {
  const seen = new Map(replicas.map((r) => [r.i, { lastBad: undefined, okAfter: undefined }]));
  let stop = false;
  const loops = replicas.map(async (r) => {
    while (!stop) {
      const res = await getJson(`${r.url}/healthz`).catch(() => ({ status: 0 }));
      const s = seen.get(r.i);
      if (res.status !== 200) {
        s.lastBad = Date.now();
        s.okAfter = undefined;
      } else if (s.lastBad !== undefined && s.okAfter === undefined) s.okAfter = Date.now();
      await sleep(100);
    }
  });
  return {
    done: async () => {
      stop = true;
      await Promise.all(loops);
      return seen;
    },
  };
}

// ---------- the invariants ----------
async function settleAndCheck(label) {
  const sql = postgres(DB_URL, { max: 1, onnotice: () => {}, connect_timeout: 5 });
  try {
    const ids = new Set(started.values());
    const deadline = Date.now() + 240_000;
    let rows;
    for (;;) {
      rows = await sql`select id, status, output, error_code, left(error_message, 300) as error_message, task from instances where process = ${DEFINITION.name}`.catch(() => undefined);
      if (rows && rows.filter((r) => r.status === "completed" || r.status === "failed").length >= rows.length && rows.length >= ids.size) break;
      if (Date.now() > deadline) break;
      await sleep(300);
    }
    const settledAt = Date.now();
    rows ??= [];
    // instances.output is JSON as text (storage/schema/instances.ts).
    rows = rows.map((r) => ({ ...r, output: r.output ? JSON.parse(r.output) : null }));
    const byId = new Map(rows.map((r) => [r.id, r]));
    const lost = [...ids].filter((id) => !byId.has(id));
    const extra = rows.filter((r) => !ids.has(r.id));
    const unsettled = rows.filter((r) => r.status !== "completed");
    const [{ twice }] = await sql`
      select count(*)::int as twice from (select l.instance_id, l.task from logs l join instances i on i.id = l.instance_id
      where i.process = ${DEFINITION.name} and l.event = 'task.started' group by 1, 2 having count(*) > 1) d`;
    const chargesByInstance = new Map();
    for (const h of hits.filter((h) => h.path === "/charge")) {
      const id = h.key.split(":")[0];
      chargesByInstance.set(id, (chargesByInstance.get(id) ?? 0) + 1);
    }
    const repeatedCharges = [...chargesByInstance.values()].filter((c) => c > 1).length;
    const charged = rows.filter((r) => r.output?.charge === "charged");
    const chargedUnseen = charged.filter((r) => chargesByInstance.get(r.id) !== 1).length;
    const interrupted = rows.filter((r) => r.output?.charge === "only_once.interrupted").length;
    const stepKeys = new Map();
    for (const h of hits.filter((h) => h.path === "/step")) stepKeys.set(h.key, (stepKeys.get(h.key) ?? 0) + 1);
    const stepResent = [...stepKeys.values()].filter((c) => c > 1).length;

    log(`${label}: ${ids.size} roots acknowledged, ${rows.length} in the database; ${charged.length} charged, ${interrupted} only_once.interrupted; ${stepResent} step calls re-sent with the same Idempotency-Key`);
    const strict = !ASYNC;
    const lossNote = strict ? "" : " (reported, not asserted: --async)";
    check(lost.length === 0 || !strict, `${label}: no acknowledged start lost (${lost.length} lost)${lossNote}`);
    check(extra.length === 0, `${label}: one instance per Idempotency-Key (${extra.length} extra)`);
    check(unsettled.length === 0, `${label}: every root settled completed (${unsettled.length} not: ${JSON.stringify(unsettled.slice(0, 3))})`);
    check(twice === 0 || !strict, `${label}: no task entered twice (${twice} task visits entered twice)${lossNote}`);
    check(repeatedCharges === 0 || !strict, `${label}: only_once never repeated (${repeatedCharges} instances charged twice)${lossNote}`);
    check(chargedUnseen === 0, `${label}: the upstream saw each charged instance exactly once (${chargedUnseen} not)`);
    return settledAt;
  } finally {
    await sql.end({ timeout: 1 });
  }
}

async function checkReplicas(label) {
  for (const r of replicas) {
    check(r.child.exitCode === null && r.child.signalCode === null && r.child.pid === r.pid, `${label}: replica ${r.i} is the process it was (pid ${r.pid}), never restarted`);
    const h = await getJson(`${r.url}/healthz`).catch(() => ({ status: 0 }));
    check(h.status === 200, `${label}: replica ${r.i} answers /healthz 200`);
  }
}

/** The primary's WAL position, through the failover URL. */
async function walPosition() {
  const sql = postgres(DB_URL, { max: 1, onnotice: () => {}, connect_timeout: 5 });
  try {
    const [{ lsn }] = await sql`select pg_current_wal_lsn()::text as lsn`;
    return lsn;
  } finally {
    await sql.end({ timeout: 1 });
  }
}

async function fault(label, act) {
  const lsn0 = await walPosition();
  const roots0 = started.size;
  startLoad();
  await sleep(4000);
  const oldLeader = leaderOf(await cluster());
  acknowledgedAfter = [];
  const at = Date.now();
  const health = watchHealth();
  await act(oldLeader);
  const members = await waitCluster(`${label}: a new leader`, (m) => leaderOf(m) !== undefined && leaderOf(m) !== oldLeader);
  const promotedAt = Date.now();
  const newLeader = leaderOf(members);
  // Keep starting through the recovery until a start is acknowledged by the new leader, then a few seconds more.
  for (const deadline = Date.now() + 120_000; Date.now() < deadline; ) {
    if (acknowledgedAfter.some((t) => t > promotedAt)) break;
    await sleep(100);
  }
  await sleep(3000);
  const seen = await health.done();
  await stopLoad();
  // The write outage as the clients saw it: the longest gap between two acknowledged starts.
  const acks = [at, ...acknowledgedAfter.filter((t) => t >= at)].sort((a, b) => a - b);
  let gap = { from: at, to: at };
  for (let k = 1; k < acks.length; k++) if (acks[k] - acks[k - 1] > gap.to - gap.from) gap = { from: acks[k - 1], to: acks[k] };
  const settledAt = await settleAndCheck(label);
  // WAL per root: what asynchronous replication can lose on a failover is counted in WAL bytes.
  const sqlW = postgres(DB_URL, { max: 1, onnotice: () => {}, connect_timeout: 5 });
  const [{ bytes }] = await sqlW`select pg_wal_lsn_diff(pg_current_wal_lsn(), ${lsn0}::pg_lsn)::bigint as bytes`;
  await sqlW.end({ timeout: 1 });
  const walPerRoot = Number(bytes) / Math.max(1, started.size - roots0);
  await checkReplicas(label);
  const s = (ms) => `${(ms / 1000).toFixed(1)} s`;
  const recovered = [...seen.values()].map((v) => (v.lastBad === undefined ? "never down" : v.okAfter === undefined ? "not recovered" : s(v.okAfter - at)));
  check(!recovered.includes("not recovered"), `${label}: every replica's /healthz answered 200 again (${recovered.join(", ")})`);
  const figures = {
    label,
    from: oldLeader,
    to: newLeader,
    promoted: s(promotedAt - at),
    healthz: recovered.join(", "),
    gap: `${s(gap.to - gap.from)} (from ${s(gap.from - at)} to ${s(gap.to - at)})`,
    settled: s(settledAt - at),
    wal: `${(walPerRoot / 1024).toFixed(1)} KiB of WAL per root`,
  };
  log(`${label}: ${oldLeader} → ${newLeader}; new leader after ${figures.promoted}; replicas' /healthz 200 again after ${figures.healthz}; no start acknowledged for ${figures.gap}; every root settled after ${figures.settled}`);
  return figures;
}

// ---------- the drill ----------
async function main() {
  const load1 = readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
  log(`cluster in ${R}: etcd on ${ports.etcd}, PostgreSQL on ${NODES.map((n) => node[n].pg).join(", ")}; ${ASYNC ? "asynchronous" : "synchronous"} replication; load ${load1}`);
  mkdirSync(join(R, "etcd"), { mode: 0o700 });
  chownSync(join(R, "etcd"), uid, gid);
  runAsPostgres("etcd", "etcd", [
    "--name", "drill", "--data-dir", join(R, "etcd"),
    "--listen-client-urls", `http://127.0.0.1:${ports.etcd}`, "--advertise-client-urls", `http://127.0.0.1:${ports.etcd}`,
    "--listen-peer-urls", `http://127.0.0.1:${ports.peer}`, "--initial-advertise-peer-urls", `http://127.0.0.1:${ports.peer}`,
    "--initial-cluster", `drill=http://127.0.0.1:${ports.peer}`,
  ]);
  for (const n of NODES) {
    writeFileSync(join(R, `${n}.yml`), patroniYaml(n));
    chownSync(join(R, `${n}.yml`), uid, gid);
  }
  // The first node bootstraps (initdb); the others then clone it with pg_basebackup.
  startPatroni("n1");
  await waitCluster("n1 bootstrapped", (m) => leaderOf(m) === "n1");
  startPatroni("n2");
  startPatroni("n3");
  await waitCluster("three nodes streaming", (m) => healthy(m, 3));
  log(`cluster up: ${JSON.stringify((await cluster()).map((m) => `${m.name} ${m.role} ${m.state}`))}`);

  for (let i = 0; i < REPLICAS; i++) await startReplica(i);
  const put = await getJson(`${replicas[0].url}/api/definitions`, { method: "PUT", headers: { "content-type": "application/json" }, body: JSON.stringify(DEFINITION) });
  if (put.status !== 200) throw new Error(`definition: ${put.status} ${JSON.stringify(put.body)}`);
  log(`${REPLICAS} baton-api replicas on ${DB_URL}`);

  const results = [];
  results.push(
    await fault("failover", async (leader) => {
      const killed = killNode(leader);
      log(`failover: killed ${leader} (kill -9 of ${killed} processes: Patroni, the postmaster, its backends)`);
    }),
  );
  // The dead node comes back as a standby: Patroni rewinds it onto the new timeline.
  const dead = results[0].from;
  startPatroni(dead);
  const rejoinAt = Date.now();
  await waitCluster(`${dead} rejoined`, (m) => healthy(m, 3));
  log(`${dead} rejoined as a standby after ${((Date.now() - rejoinAt) / 1000).toFixed(1)} s`);

  results.push(
    await fault("switchover", async (leader) => {
      const out = execFileSync("patronictl", ["-c", join(R, `${leader}.yml`), "switchover", "--force"], { uid, gid, env: { PATH: process.env.PATH, HOME: R } }).toString();
      log(`switchover: ${out.trim().split("\n").filter((l) => /Successfully|switchover/i.test(l)).join(" ")}`);
    }),
  );
  const load2 = readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
  console.log("");
  console.log(`Patroni drill: 3 nodes (PostgreSQL 15, Patroni ttl ${TTL} s, loop_wait ${LOOP_WAIT} s), ${ASYNC ? "asynchronous" : "synchronous"} replication, ${REPLICAS} baton-api replicas, load ${load1} → ${load2}`);
  for (const r of results)
    console.log(`${r.label.padEnd(10)} ${r.from} → ${r.to}: new leader after ${r.promoted}; /healthz 200 again after ${r.healthz}; no start acknowledged for ${r.gap}; every root settled after ${r.settled}; ${r.wal}`);
  console.log(`${started.size} roots, ${hits.filter((h) => h.path === "/charge").length} charges seen by the upstream`);
  if (failures.length > 0) {
    console.log(`DRILL FAILED: ${failures.length} checks:\n  ${failures.join("\n  ")}`);
    process.exitCode = 1;
  } else console.log("patroni drill passed: every root settled, nothing lost, no task entered twice, no only_once repeated, every replica recovered without a restart");
}

for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => cleanup().then(() => process.exit(130)));
try {
  await main();
} catch (error) {
  console.error(error);
  process.exitCode = 1;
} finally {
  await stopLoad().catch(() => {});
  upstream.close();
  await cleanup();
}
