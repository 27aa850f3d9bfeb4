// Over 300 lines on purpose: one workload of scripts/bench.mjs (seeding, the reads, the table) that
// runs from node without a build step; its parts share the seeded layout.
// `pnpm bench --history 10000,1000000,10000000`: the read and write paths as history grows
// (docs/performance.md "Reads at ten million instances"). At each size it grows the instances
// table to N rows with generated SQL (no API: clones of rows the engine itself wrote, so every
// column is what the engine writes), then measures the running server: every list, filter, sort,
// cursor page and count, the UI's first screen, starts, and a drain of fetch instances.

const DAY_MS = 86_400_000;
const HISTORY_DAYS = 90;
// Roots that are trees: one in 20 roots spawns TREE_CHILDREN children (child_map), so N rows are N / 1.4 roots.
const TREE_PER_10000 = 500;
const TREE_CHILDREN = 8;
// Twenty processes, "greet" the busiest (30 % of the plain roots), the rest evenly.
const PROCESSES = [
  "greet", "order", "invoice", "ship", "refund", "notify", "onboard", "sync", "report", "audit",
  "renew", "remind", "score", "import", "export", "archive", "verify", "match", "price", "close",
];
// Failed roots' error codes, by share of the failures (per 100).
const ERROR_CODES = [
  ["http.503", 40], ["http.500", 25], ["http.timeout", 15], ["http.404", 10], ["out_of_stock", 10],
];
const SEED_DRAIN_N = 2000;
const STARTS_N = 200;

/**
 * shared: what bench.mjs shares: { pgUrl, sql, startApi, call, drain, park, log, upstreamUrl, pollMs }.
 * sizes: instance counts to grow to, ascending. Prints the growth table; returns its rows.
 */
export async function historyRun(shared, sizes) {
  // Each server listens on a fresh port 0, and the OS hands out a stopped server's port again:
  // fetch's pool may still hold that dead server's keep-alive socket ("other side closed"
  // before the request was read). Such a call is sent once more, on a new socket.
  const call = async (...a) => {
    try {
      return await shared.call(...a);
    } catch (error) {
      if (error?.cause?.code !== "UND_ERR_SOCKET") throw error;
      return shared.call(...a);
    }
  };
  const ctx = { ...shared, call };
  const { sql, log } = ctx;
  const failing = await startFailingUpstream();
  try {
    const api0 = await ctx.startApi(ctx.pgUrl, ["--poll", String(ctx.pollMs)]);
    const templates = await makeTemplates(ctx, api0.url, failing.url);
    await api0.stop();
    const columns = (await sql`select column_name from information_schema.columns where table_name = 'instances' order by ordinal_position`).map((r) => r.column_name);
    const table = [];
    // Roots are numbered on from those a kept database already holds (ids stay unique).
    let [{ roots }] = await sql`select count(*)::int as roots from instances where parent_id is null`;
    for (const size of sizes) {
      const [{ n }] = await sql`select count(*)::int as n from instances`;
      const wantRoots = Math.max(0, Math.round((size - n) / (1 + (TREE_PER_10000 * TREE_CHILDREN) / 10000)));
      if (wantRoots > 0) {
        log(`history: growing instances from ${n} to ~${size} rows (${wantRoots} roots)`);
        const t = Date.now();
        await seed(ctx, templates, columns, roots, wantRoots, wantRoots > 50_000);
        roots += wantRoots;
        log(`history: seeded in ${((Date.now() - t) / 1000).toFixed(0)} s`);
      }
      const [{ rows }] = await sql`select count(*)::int as rows from instances`;
      table.push({ size: rows, ...(await measure(ctx, templates, rows)) });
      printTable(table);
    }
    return table;
  } finally {
    await failing.close();
  }
}

/** An upstream that answers 503, so a real failed instance can be cloned. */
async function startFailingUpstream() {
  const { createServer } = await import("node:http");
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      res.writeHead(503, { "content-type": "application/json" });
      res.end('{"error":"unavailable"}');
    });
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${server.address().port}`, close: () => new Promise((r) => server.close(r)) };
}

/**
 * The rows the seed clones, each written by the engine: a completed plain root, a failed one, a
 * cancelled and a paused timer root, a running one parked on a 60-day delay, and a completed tree
 * (its root and TREE_CHILDREN children).
 */
async function makeTemplates(ctx, base, failingUrl) {
  const { call, sql } = ctx;
  const plain = (name) => ({
    name,
    input_schema: { type: "object", properties: { n: { type: "integer" } } },
    tasks: [{ id: "first", output: { step: 1 } }, { id: "second", output: "$: outputs.first.step + 1" }],
  });
  for (const name of PROCESSES) await call(base, "PUT", "/api/definitions", plain(name));
  await call(base, "PUT", "/api/definitions", {
    name: "history_charge",
    tasks: [{ id: "charge", action: { type: "fetch", method: "post", url: `${failingUrl}/charge`, body: { amount: 1 } } }],
  });
  await call(base, "PUT", "/api/definitions", { name: "history_timer", tasks: [{ id: "later", action: { type: "delay", for: "60d" } }, { id: "done", output: true }] });
  await call(base, "PUT", "/api/definitions", plain("fanout_item"));
  const children = Object.fromEntries(Array.from({ length: TREE_CHILDREN }, (_, i) => [`c${i + 1}`, { name: "fanout_item", input: { n: i } }]));
  await call(base, "PUT", "/api/definitions", { name: "fanout", tasks: [{ id: "split", action: { type: "child_map", children } }] });
  const start = async (process, input) => (await call(base, "POST", "/api/instances", input === undefined ? { process } : { process, input })).id;
  const until = async (id, statuses) => {
    for (let i = 0; i < 600; i++) {
      const row = await call(base, "GET", `/api/instances/${id}`);
      if (statuses.includes(row.status)) return;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`history: template ${id} did not reach ${statuses.join("/")}`);
  };
  const completed = await start("greet", { n: 1 });
  const failed = await start("history_charge");
  const tree = await start("fanout");
  const running = await start("history_timer");
  const paused = await start("history_timer");
  const cancelled = await start("history_timer");
  await until(completed, ["completed"]);
  await until(tree, ["completed"]);
  await until(failed, ["failed"]);
  for (const id of [running, paused, cancelled]) {
    for (let i = 0; i < 600; i++) {
      const [row] = await sql`select wake_at from instances where id = ${id} and task = 'later'`;
      if (row && Number(row.wake_at) > Date.now() + DAY_MS) break;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  await call(base, "POST", `/api/instances/${paused}/pause`);
  await call(base, "POST", `/api/instances/${cancelled}/cancel`);
  await until(paused, ["paused"]);
  await until(cancelled, ["cancelled"]);
  const kids = (await sql`select id from instances where parent_id = ${tree} order by spawn_key`).map((r) => r.id);
  if (kids.length !== TREE_CHILDREN) throw new Error(`history: the template tree has ${kids.length} children`);
  return { completed, failed, tree, kids, running, paused, cancelled };
}

/** A UUIDv7-shaped id (storage/ids.ts): its time prefix is `ms`, the rest unique by root number `g` and child `c`. */
const idSql = (ms, g, c) =>
  `(substr(lpad(to_hex(${ms}), 12, '0'), 1, 8) || '-' || substr(lpad(to_hex(${ms}), 12, '0'), 9, 4) || '-7' || lpad(to_hex(${c}), 3, '0') || '-8' || lpad(to_hex((${g}) % 4096), 3, '0') || '-' || lpad(to_hex(${g}), 12, '0'))`;

/**
 * Inserts `count` roots numbered from `from` (and their trees) by cloning the templates. Big
 * batches drop the secondary indexes first and build them again after (faster than maintaining
 * them row by row), then VACUUM ANALYZE so index-only scans and plans see the new rows.
 */
async function seed(ctx, t, columns, from, count, rebuild) {
  const { sql, log } = ctx;
  const end = Date.now() - 3_600_000;
  const span = HISTORY_DAYS * DAY_MS;
  let indexes = [];
  if (rebuild) {
    indexes = await sql`select indexname, indexdef from pg_indexes where tablename = 'instances' and indexname <> 'instances_pkey'`;
    for (const i of indexes) await sql.unsafe(`drop index ${i.indexname}`);
  }
  // Root g's bucket h (0..9999; 7919 is prime, so consecutive g spread over every bucket) picks its kind.
  const h = `((g * 7919) % 10000)`;
  const created = `(${end - span}::bigint + ((g::bigint * 2654435761) % ${span}))`;
  const kind = `CASE WHEN ${h} < ${TREE_PER_10000} THEN 'tree' WHEN ${h} < 900 THEN 'failed' WHEN ${h} < 950 THEN 'cancelled'
    WHEN ${h} < 1000 THEN 'paused' WHEN ${h} < 1050 THEN 'running' ELSE 'completed' END`;
  let codeCase = "CASE";
  let acc = 0;
  for (const [code, share] of ERROR_CODES) {
    acc += share;
    codeCase += ` WHEN (g % 100) < ${acc} THEN '${code}'`;
  }
  codeCase += " END";
  // 30 % greet, the other 19 evenly.
  const process = `CASE WHEN ((g * 31) % 100) < 30 THEN 'greet' ELSE (ARRAY[${PROCESSES.slice(1).map((p) => `'${p}'`).join(",")}])[(1 + ((g * 17) % ${PROCESSES.length - 1}))::int] END`;
  const override = (r, child) => ({
    id: child ? idSql(`${created} + 1`, "g", "c.n") : idSql(created, "g", 0),
    root_id: idSql(created, "g", 0),
    parent_id: child ? idSql(created, "g", 0) : null,
    process: child ? null : `CASE WHEN r.k = 'completed' THEN ${process} ELSE t.process END`,
    error_code: child ? null : `CASE WHEN r.k = 'failed' THEN ${codeCase} ELSE t.error_code END`,
    key: child ? null : `CASE WHEN g % 10 = 0 THEN 'order-' || g ELSE NULL END`,
    created_at: child ? `${created} + 1` : created,
    updated_at: child ? `${created} + 40 + c.n` : `CASE WHEN r.k IN ('running', 'paused') THEN ${created} + 5 ELSE ${created} + 50 + (g % 3000) END`,
        // Parked on the delay until after the run: never due while the bench measures.
    wake_at: `CASE WHEN t.wake_at IS NULL THEN NULL ELSE ${end + 60 * DAY_MS}::bigint END`,
  });
  const select = (child) => {
    const o = override(null, child);
    return columns.map((c) => (c in o && o[c] !== null ? `${o[c]} AS ${c}` : c === "parent_id" && !child ? "NULL AS parent_id" : `t.${c}`)).join(", ");
  };
  const kindTemplates = `(VALUES ('tree', '${t.tree}'), ('failed', '${t.failed}'), ('cancelled', '${t.cancelled}'), ('paused', '${t.paused}'), ('running', '${t.running}'), ('completed', '${t.completed}')) AS kt(k, id)`;
  const BATCH = 500_000;
  for (let lo = from + 1; lo <= from + count; lo += BATCH) {
    const hi = Math.min(from + count, lo + BATCH - 1);
    // Triggers off for the bulk insert (the counters are recounted below, as a migration would).
    await sql.begin(async (tx) => {
      await tx.unsafe("SET LOCAL session_replication_role = replica");
      await tx.unsafe(`
        INSERT INTO instances (${columns.join(", ")})
        SELECT ${select(false)}
        FROM generate_series(${lo}::bigint, ${hi}::bigint) g
        CROSS JOIN LATERAL (SELECT ${kind} AS k) r
        JOIN ${kindTemplates} ON kt.k = r.k
        JOIN instances t ON t.id = kt.id`);
      await tx.unsafe(`
        INSERT INTO instances (${columns.join(", ")})
        SELECT ${select(true)}
        FROM generate_series(${lo}::bigint, ${hi}::bigint) g
        JOIN (SELECT row_number() OVER (ORDER BY spawn_key) AS n, i.* FROM instances i WHERE i.id IN (${t.kids.map((k) => `'${k}'`).join(",")})) c ON true
        JOIN instances t ON t.id = c.id
        WHERE ${h} < ${TREE_PER_10000}`);
    });
    log(`history: roots ${lo}..${hi} inserted`);
  }
  for (const i of indexes) await sql.unsafe(i.indexdef);
  // The counters of GET /instances/counts (migration 0013), where the build has them: exact again.
  const [{ counters }] = await sql`select to_regclass('instance_counts') is not null as counters`;
  if (counters)
    await sql.begin(async (tx) => {
      await tx.unsafe("LOCK TABLE instances IN SHARE ROW EXCLUSIVE MODE");
      await tx.unsafe("DELETE FROM instance_counts");
      await tx.unsafe("DELETE FROM instance_count_deltas");
      await tx.unsafe(`INSERT INTO instance_counts SELECT status, process, coalesce(phase, ''), coalesce(error_code, ''), parent_id IS NULL, count(*)
        FROM instances GROUP BY 1, 2, 3, 4, 5`);
    });
  await sql.unsafe("VACUUM ANALYZE instances");
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor((s.length - 1) / 2)];
};

/** Median ms of `fn` over up to 7 runs after one unmeasured run; at least 3, at most ~30 s. */
async function timed(fn) {
  await fn();
  const xs = [];
  const t0 = Date.now();
  while (xs.length < 7 && (xs.length < 3 || Date.now() - t0 < 30_000)) {
    const t = performance.now();
    await fn();
    xs.push(performance.now() - t);
  }
  return median(xs);
}

/** The reads of the growth table: label → path (or a function doing several requests). */
async function reads(ctx, t, base) {
  const { sql, call } = ctx;
  // Page 500 of 20 rows: the cursor of the 10,000th root (or of the last one in a smaller table).
  const [{ roots }] = await sql`select count(*)::int as roots from instances where parent_id is null`;
  const [deep] = await sql`select created_at, id from instances where parent_id is null order by created_at desc, id desc offset ${Math.min(9999, roots - 1)} limit 1`;
  const cursor = Buffer.from(JSON.stringify({ l: "instances", s: "created_at", o: "desc", v: [Number(deep.created_at), deep.id] })).toString("base64url");
  const [keyed] = await sql`select key from instances where key is not null order by created_at desc limit 1 offset 1000`;
  const get = (path) => () => call(base, "GET", path);
  const now = Date.now();
  return [
    ["GET /instances (default page)", get("/api/instances")],
    ["GET /instances?limit=100", get("/api/instances?limit=100")],
    ["?status=failed", get("/api/instances?status=failed")],
    ["?status=running (live)", get("/api/instances?status=running")],
    ["?status=failed,cancelled", get("/api/instances?status=failed,cancelled")],
    ["?process=greet", get("/api/instances?process=greet")],
    ["?process=audit&version=1", get("/api/instances?process=audit&version=1")],
    ["?error_code=http.503", get("/api/instances?error_code=http.503")],
    ["?error_code=out_of_stock&status=failed", get("/api/instances?error_code=out_of_stock&status=failed")],
    ["?process=greet&task=second", get("/api/instances?process=greet&task=second")],
    ["?key=", get(`/api/instances?key=${keyed?.key ?? "none"}`)],
    ["?children=true", get("/api/instances?children=true")],
    ["?parent_id= (a tree)", get(`/api/instances?parent_id=${t.tree}`)],
    ["?sort=updated_at", get("/api/instances?sort=updated_at")],
    ["?order=asc (oldest first)", get("/api/instances?order=asc")],
    ["?created_after=now-1d", get(`/api/instances?created_after=${now - DAY_MS}`)],
    ["?created_before=now-60d", get(`/api/instances?created_before=${now - 60 * DAY_MS}`)],
    ["page 500 by cursor", get(`/api/instances?after=${cursor}`)],
    ["counts by=status", get("/api/instances/counts?by=status")],
    ["counts by=process,status", get("/api/instances/counts?by=process,status")],
    ["counts by=error_code&status=failed", get("/api/instances/counts?by=error_code&status=failed")],
    ["counts by=status&children=true", get("/api/instances/counts?by=status&children=true")],
    [
      "UI first screen (list + 2 counts)",
      () => Promise.all([get("/api/instances?limit=20")(), get("/api/instances/counts?by=process,status")(), get("/api/instances/counts?by=process")()]),
    ],
    ["GET /instances/{id}", get(`/api/instances/${t.failed}`)],
    ["GET /instances/{id}/detail", get(`/api/instances/${t.tree}/detail`)],
    ["GET /instances/{id}/logs (tree)", get(`/api/instances/${t.tree}/logs`)],
    ["GET /definitions", get("/api/definitions")],
  ];
}

async function measure(ctx, t, rows) {
  const { sql, log } = ctx;
  const out = {};
  // The drain: SEED_DRAIN_N fetch roots preloaded with the pump off, then released at once.
  const drainProcess = `history_drain_${rows}`;
  const loader = await ctx.startApi(ctx.pgUrl, []);
  await ctx.call(loader.url, "PUT", "/api/definitions", {
    name: drainProcess,
    tasks: [
      { id: "one", action: { type: "fetch", method: "post", url: `${ctx.upstreamUrl}/one`, body: { step: 1 } } },
      { id: "two", action: { type: "fetch", method: "get", url: `${ctx.upstreamUrl}/two` } },
    ],
  });
  let next = 0;
  await Promise.all(
    Array.from({ length: 32 }, async () => {
      while (next++ < SEED_DRAIN_N) await ctx.call(loader.url, "POST", "/api/instances", { process: drainProcess });
    }),
  );
  await ctx.park(sql, drainProcess);
  await loader.stop();
  const api = await ctx.startApi(ctx.pgUrl, ["--poll", String(ctx.pollMs)]);
  log(`history ${rows}: drain of ${SEED_DRAIN_N} fetch instances`);
  const d = await ctx.drain(api.url, sql, drainProcess, SEED_DRAIN_N, "pump", api.pid);
  out.drain = d.rate;
  log(`history ${rows}: ${STARTS_N} sequential starts`);
  const startMs = [];
  for (let i = 0; i < STARTS_N + 20; i++) {
    const t0 = performance.now();
    await ctx.call(api.url, "POST", "/api/instances", { process: "greet", input: { n: i } });
    if (i >= 20) startMs.push(performance.now() - t0);
  }
  out.start = median(startMs);
  out.reads = {};
  for (const [label, fn] of await reads(ctx, t, api.url)) {
    out.reads[label] = await timed(fn);
    log(`history ${rows}: ${label} ${out.reads[label].toFixed(1)} ms`);
  }
  const { loadavg } = await import("node:os");
  out.load = loadavg()
    .map((x) => x.toFixed(1))
    .join(" ");
  await api.stop();
  return out;
}

function printTable(table) {
  const head = `| request | ${table.map((c) => `${c.size.toLocaleString("en")} instances`).join(" | ")} |`;
  const lines = [head, `|---|${table.map(() => "---|").join("")}`];
  lines.push(`| start (POST /instances, runs in the start), median ms | ${table.map((c) => c.start.toFixed(1)).join(" | ")} |`);
  lines.push(`| drain of ${SEED_DRAIN_N} fetch instances, instances/s | ${table.map((c) => c.drain.toFixed(0)).join(" | ")} |`);
  for (const label of Object.keys(table[0].reads))
    lines.push(`| ${label}, median ms | ${table.map((c) => c.reads[label].toFixed(1)).join(" | ")} |`);
  lines.push(`| load average (1, 5, 15 min) after the reads | ${table.map((c) => c.load).join(" | ")} |`);
  console.log(`\n${lines.join("\n")}\n`);
}
