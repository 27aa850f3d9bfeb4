#!/usr/bin/env node
// The UI's home page at N instances (docs/performance.md "The home page at a million
// instances"): every request the home page makes on load — the first page of roots, the counts
// by process and status, the incident groups (failed and raised by process and error code) and
// the activity chart (GET /instances/activity for the hour, day and week) — timed against a
// server on PostgreSQL holding N roots of 8 processes settled over the last week (90 %
// completed, 8 % failed under 7 error codes, 2 % raised). It seeds `instances` with generated
// SQL (psql against BENCH_DATABASE_URL, a database it creates and drops), lets the pump fold
// the counters, and prints the median of 9 reads (after one unmeasured) of each request.
//
//   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres node scripts/bench-home.mjs [N]
import { execFileSync, spawn } from "node:child_process";
import { loadavg } from "node:os";
import { fileURLToPath } from "node:url";

const N = Number(process.argv[2] ?? 1_000_000);
const admin = process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const name = `baton_home_bench_${process.pid}`;
const url = admin.replace(/\/[^/]*$/, `/${name}`);
const main = fileURLToPath(new URL("../apps/api/dist/main.js", import.meta.url));
const PROCESSES = ["orders", "billing", "shipping", "audit", "refunds", "invoices", "payouts", "reviews"];
const CODES = ["http.500", "http.502", "http.503", "http.504", "pre.error", "engine.crashed", "fetch.timeout"];
const WEEK = 7 * 86_400_000;

const psql = (db, sql) => execFileSync("psql", [db, "-v", "ON_ERROR_STOP=1", "-qAt", "-c", sql], { encoding: "utf8" });
const log = (line) => process.stderr.write(`${line}\n`);

psql(admin, `CREATE DATABASE ${name}`);
let server;
try {
  // Polling on: the pump folds the counters' deltas of the seeding into their totals.
  server = spawn(process.execPath, [main, "--db", url, "--http", "127.0.0.1:0"], { stdio: ["ignore", "ignore", "pipe"] });
  const base = await new Promise((resolve, reject) => {
    let text = "";
    server.stderr.on("data", (chunk) => {
      text += chunk;
      const m = /"url":"(http:\/\/[^"]+)"/.exec(text);
      if (m) resolve(m[1]);
    });
    server.on("exit", (code) => reject(new Error(`server exited ${code}: ${text}`)));
  });
  const get = async (path) => {
    const res = await fetch(`${base}${path}`);
    if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${await res.text()}`);
    return res.json();
  };
  for (const process of PROCESSES)
    await fetch(`${base}/api/definitions`, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: process, tasks: [{ id: "only" }] }),
    });
  const t = Date.now();
  // g % 50: 0–3 failed (8 %), 4 raised (2 %), the rest completed; settled evenly over the week.
  psql(
    url,
    `INSERT INTO instances (id, root_id, process, version, status, task, state, error_code, created_at, updated_at)
     SELECT id, id, p, 1, s, 'only', '{}',
            CASE WHEN s = 'failed' THEN (ARRAY['${CODES.join("','")}'])[1 + (g / 50) % ${CODES.length}]
                 WHEN s = 'raised' THEN 'declined' END,
            c - 1000, c
     FROM (SELECT gen_random_uuid()::text AS id, g,
                  (ARRAY['${PROCESSES.join("','")}'])[1 + g % ${PROCESSES.length}] AS p,
                  CASE WHEN g % 50 < 4 THEN 'failed' WHEN g % 50 = 4 THEN 'raised' ELSE 'completed' END AS s,
                  (extract(epoch from now()) * 1000)::bigint - (g::bigint * ${WEEK} / ${N}) AS c
           FROM generate_series(1, ${N}) g) rows`,
  );
  log(`seeded ${N} instances in ${((Date.now() - t) / 1000).toFixed(0)} s`);
  for (;;) {
    const pending = Number(psql(url, "SELECT count(*) FROM instance_count_deltas").trim());
    if (pending === 0) break;
    await new Promise((r) => setTimeout(r, 1000));
  }
  psql(url, "VACUUM ANALYZE instances");
  const median = async (path) => {
    await get(path);
    const times = [];
    for (let i = 0; i < 9; i++) {
      const began = performance.now();
      await get(path);
      times.push(performance.now() - began);
    }
    return times.sort((a, b) => a - b)[4];
  };
  const requests = [
    "/api/instances?limit=20",
    "/api/instances/counts?by=process,status",
    "/api/instances/counts?status=failed&by=process,error_code",
    "/api/instances/counts?status=raised&by=process,error_code",
    "/api/instances/activity?window=hour",
    "/api/instances/activity?window=day",
    "/api/instances/activity?window=week",
  ];
  let total = 0;
  const rows = [];
  for (const path of requests) {
    const ms = await median(path);
    total += ms;
    rows.push(`${ms.toFixed(1).padStart(8)} ms  GET ${path.replace("/api", "")}`);
  }
  const week = await get("/api/instances/activity?window=week");
  console.log(`home page at ${N.toLocaleString("en-US")} roots (PostgreSQL, median of 9):`);
  for (const row of rows) console.log(row);
  console.log(`${total.toFixed(1).padStart(8)} ms  all of them one after another (the page sends them at once)`);
  console.log(`activity week: ${week.groups.length} groups; load average ${loadavg().map((l) => l.toFixed(1)).join(" ")}`);
} finally {
  server?.kill();
  await new Promise((r) => setTimeout(r, 500));
  psql(admin, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
}
