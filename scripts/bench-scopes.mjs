#!/usr/bin/env node
// Scoped lists at N instances (docs/performance.md "Scoped lists"): the same page read by a
// credential without scopes filtering by process, and by scoped credentials without a filter.
// It seeds `instances` with generated SQL (psql against BENCH_DATABASE_URL, a database it creates
// and drops), starts the built server on it, mints the tokens, and prints the median of 9 reads
// (after one unmeasured) of each request.
//
//   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres node scripts/bench-scopes.mjs [N]
import { execFileSync, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const N = Number(process.argv[2] ?? 1_000_000);
const admin = process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const name = `baton_scopes_bench_${process.pid}`;
const url = admin.replace(/\/[^/]*$/, `/${name}`);
const main = fileURLToPath(new URL("../apps/api/dist/main.js", import.meta.url));
const TEAMS = ["orders", "billing", "shipping", "audit"];
const PER_TEAM = 5;

const psql = (db, sql) => execFileSync("psql", [db, "-v", "ON_ERROR_STOP=1", "-qAt", "-c", sql], { encoding: "utf8" });
const log = (line) => process.stderr.write(`${line}\n`);

psql(admin, `CREATE DATABASE ${name}`);
let server;
try {
  const token = (perms, scopes) =>
    execFileSync(process.execPath, [main, "tokens", "create", "--label", `bench ${scopes ?? "*"}`, "--perms", perms, ...(scopes ? ["--scopes", scopes] : []), "--db", url], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    }).trim();
  const unscoped = token("admin"); // migrates the database on its first use
  const scopedOne = token("read", "orders-1");
  const scopedTeam = token("read", "orders-*");
  const startApi = async () => {
    server = spawn(process.execPath, [main, "--db", url, "--auth", "token", "--http", "127.0.0.1:0", "--poll", "0"], {
      stdio: ["ignore", "ignore", "pipe"],
    });
    return new Promise((resolve, reject) => {
      let text = "";
      server.stderr.on("data", (chunk) => {
        text += chunk;
        const m = /"url":"(http:\/\/[^"]+)"/.exec(text);
        if (m) resolve(m[1]);
      });
      server.on("exit", (code, signal) => {
        log(`server exited ${code ?? signal}: ${text.slice(-1000)}`);
        reject(new Error("server exited"));
      });
    });
  };
  let base = await startApi();
  const call = async (secret, method, path, body) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    return res.json();
  };
  const processes = TEAMS.flatMap((team) => Array.from({ length: PER_TEAM }, (_, i) => `${team}-${i + 1}`));
  for (const process of processes) await call(unscoped, "PUT", "/api/definitions", { name: process, tasks: [{ id: "only" }] });
  // Stopped while seeding: the seed is minutes of one statement, and the server is measured fresh after it.
  server.removeAllListeners("exit");
  server.kill();
  await new Promise((r) => server.once("exit", r));
  const t = Date.now();
  // Completed roots spread evenly over the 20 processes and 90 days; ids are unique, time-ordered enough.
  psql(
    url,
    `INSERT INTO instances (id, root_id, process, version, status, task, state, created_at, updated_at)
     SELECT id, id, p, 1, 'completed', 'only', '{}', c, c
     FROM (SELECT gen_random_uuid()::text AS id, (ARRAY['${processes.join("','")}'])[1 + g % ${processes.length}] AS p,
                  (extract(epoch from now()) * 1000)::bigint - (g::bigint * 7776000000 / ${N}) AS c
           FROM generate_series(1, ${N}) g) s`,
  );
  psql(url, "VACUUM ANALYZE instances");
  log(`seeded ${N} instances in ${((Date.now() - t) / 1000).toFixed(0)} s`);
  base = await startApi();
  const median = async (secret, path) => {
    await call(secret, "GET", path);
    const times = [];
    for (let i = 0; i < 9; i++) {
      const began = performance.now();
      await call(secret, "GET", path);
      times.push(performance.now() - began);
    }
    return times.sort((a, b) => a - b)[4].toFixed(1);
  };
  const rows = [
    ["without scopes, ?process=orders-1", await median(unscoped, "/api/instances?process=orders-1")],
    ["scopes [orders-1], no filter", await median(scopedOne, "/api/instances")],
    ["without scopes, no filter", await median(unscoped, "/api/instances")],
    [`scopes [orders-*] (${PER_TEAM} processes), no filter`, await median(scopedTeam, "/api/instances")],
    ["without scopes, ?process=orders-1&children=true", await median(unscoped, "/api/instances?process=orders-1&children=true")],
    ["scopes [orders-1], ?children=true", await median(scopedOne, "/api/instances?children=true")],
  ];
  const load = execFileSync("cat", ["/proc/loadavg"], { encoding: "utf8" }).split(" ").slice(0, 3).join(" ");
  console.log(`| request at ${N.toLocaleString("en")} instances | median ms |\n|---|---|`);
  for (const [what, ms] of rows) console.log(`| ${what} | ${ms} |`);
  console.log(`\nload average ${load}`);
} finally {
  server?.kill();
  await new Promise((r) => setTimeout(r, 500));
  if (process.env.BENCH_KEEP_DATABASE === "1") log(`kept ${url}`);
  else psql(admin, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
}
