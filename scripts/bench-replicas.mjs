// `pnpm bench --replicas 1,2,3,4 [--drain N] [--fetch N]`: the write ceiling (docs/performance.md
// "Replicas on one PostgreSQL"). For each replica count K it preloads N drain roots (and N fetch
// roots) parked, starts K baton-api replicas with their pumps on, releases the roots at once and
// waits until all settled. Rate = N / (last completing write − release). It reports the CPU the
// replicas and PostgreSQL spent per instance and the commits per instance, so where the rate
// stops growing says which one is the limit.

/**
 * shared: { pgUrl, sql, startApi, call, preload, park, waitFor, cpuSeconds, postgresPids, commitCount, log, upstreamUrl, pollMs }.
 * counts: replica counts, e.g. [1, 2, 3, 4]. Prints one line per count and workload; returns them.
 */
export async function replicasRun(shared, counts, drainN, fetchN) {
  const { sql, log, call } = shared;
  const loader = await shared.startApi(shared.pgUrl, []);
  const drainDef = (name) => ({
    name,
    tasks: [{ id: "first", output: { step: 1 } }, { id: "second", output: "$: outputs.first.step + 1" }],
  });
  const fetchDef = (name) => ({
    name,
    tasks: [
      { id: "one", action: { type: "fetch", method: "post", url: `${shared.upstreamUrl}/one`, body: { step: 1 } } },
      { id: "two", action: { type: "fetch", method: "get", url: `${shared.upstreamUrl}/two` } },
    ],
  });
  const runs = [];
  for (const k of counts) {
    for (const [kind, n, def] of [
      ["drain", drainN, drainDef],
      ["fetch", fetchN, fetchDef],
    ]) {
      if (n <= 0) continue;
      for (const suffix of ["warmup", "measured"]) {
        const name = `bench_replicas_${kind}_${k}_${suffix}`;
        await call(loader.url, "PUT", "/api/definitions", def(name));
        const t = Date.now();
        await shared.preload(loader.url, name, suffix === "warmup" ? Math.min(n, 300 * k) : n);
        await shared.park(sql, name);
        log(`replicas: ${name} preloaded in ${((Date.now() - t) / 1000).toFixed(1)} s`);
      }
      runs.push({ k, kind, n });
    }
  }
  await loader.stop();

  const results = [];
  for (const k of [...new Set(runs.map((r) => r.k))]) {
    const servers = [];
    for (let i = 0; i < k; i++) servers.push(await shared.startApi(shared.pgUrl, ["--poll", String(shared.pollMs)]));
    for (const { kind, n } of runs.filter((r) => r.k === k)) {
      const release = async (name, count) => {
        const t0 = Date.now();
        await sql`update instances set wake_at = ${t0} where process = ${name} and status = 'running'`;
        await shared.waitFor(sql, name, count);
        return t0;
      };
      log(`replicas: ${k} × baton-api, warm-up of ${kind}`);
      const [{ w }] = await sql`select count(*)::int as w from instances where process = ${`bench_replicas_${kind}_${k}_warmup`}`;
      await release(`bench_replicas_${kind}_${k}_warmup`, w);
      const name = `bench_replicas_${kind}_${k}_measured`;
      const pgPids = shared.postgresPids();
      const pids = servers.map((s) => s.pid);
      const cpu0 = { api: shared.cpuSeconds(pids), pg: shared.cpuSeconds(pgPids) };
      const commits0 = await shared.commitCount(sql);
      const load0 = (await import("node:fs")).readFileSync("/proc/loadavg", "utf8").split(" ")[0];
      log(`replicas: ${k} × baton-api, releasing ${n} ${kind} roots`);
      const t0 = await release(name, n);
      const rows = await sql`select status, updated_at from instances where process = ${name}`;
      const seconds = (Math.max(...rows.map((r) => Number(r.updated_at))) - t0) / 1000;
      const commits = (await shared.commitCount(sql)) - commits0;
      const cpu = { api: shared.cpuSeconds(pids) - cpu0.api, pg: shared.cpuSeconds(pgPids) - cpu0.pg };
      const load1 = (await import("node:fs")).readFileSync("/proc/loadavg", "utf8").split(" ")[0];
      results.push({
        k,
        kind,
        n,
        rate: n / seconds,
        seconds,
        notCompleted: rows.filter((r) => r.status !== "completed").length,
        apiCpuMs: (cpu.api * 1000) / n,
        pgCpuMs: (cpu.pg * 1000) / n,
        commitsPerInstance: commits / n,
        load: `${load0}→${load1}`,
      });
    }
    for (const s of servers) await s.stop();
  }
  console.log("");
  console.log("replicas  workload  instances/s  (vs fewest)  replicas' CPU ms/instance  PostgreSQL CPU ms/instance  commits/instance  load (1-min avg)");
  for (const r of results) {
    const one = results.find((x) => x.k === Math.min(...counts) && x.kind === r.kind);
    console.log(
      `${String(r.k).padStart(8)}  ${r.kind.padEnd(8)}  ${r.rate.toFixed(0).padStart(11)}  ${(r.rate / one.rate).toFixed(2).padStart(14)}×  ` +
        `${r.apiCpuMs.toFixed(3).padStart(25)}  ${r.pgCpuMs.toFixed(3).padStart(26)}  ${r.commitsPerInstance.toFixed(2).padStart(16)}  ${r.load}` +
        (r.notCompleted ? `  NOT COMPLETED ${r.notCompleted}` : ""),
    );
  }
  return results;
}
