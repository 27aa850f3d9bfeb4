// `pnpm bench --schedules N` (docs/performance.md "Schedules"): N schedules firing every minute,
// spread over the minute by their second field, on the draining server; for one whole minute
// of fires it measures the fire lag (due → the firing pass that recorded it) and drains parked
// roots beside them, for the engine's throughput next to the drain figure without schedules.

/** The process the schedules start: the drain workload's two routing tasks. */
export function scheduledDefinition(drainDef) {
  return { ...drainDef, name: "bench_scheduled" };
}

/**
 * Creates `n` schedules through the API, waits for the next whole minute, then measures one
 * minute: every fire recorded in it, and `drainProcess` (parked roots released at its start).
 */
export async function schedulesRun({ call, sql, base, n, drainProcess, drainN, drain, log }) {
  const t = Date.now();
  // One schedule per second of the minute through the API; the rest are copies of those rows
  // (the same spec text, another name), so the bench measures firing rather than n PUTs.
  const seconds = Math.min(60, n);
  for (let i = 0; i < seconds; i++)
    await call(base, "PUT", `/api/schedules/bench-${i}`, {
      process: "bench_scheduled",
      cron: [`${i} * * * * *`],
      overlap: "allow_all",
      catchup_window: "1m",
    });
  await sql`
    insert into schedules (name, process, channel, version, spec, paused, next_fire_at, next_due_at, actor, created_at, updated_at)
    select 'bench-' || g, s.process, s.channel, s.version, s.spec, s.paused, s.next_fire_at, s.next_due_at, s.actor, s.created_at, s.updated_at
    from generate_series(${seconds}::int, ${n - 1}::int) as g join schedules s on s.name = 'bench-' || (g % 60)`;
  log(`schedules: ${n} created in ${((Date.now() - t) / 1000).toFixed(1)} s`);
  // The measured minute starts at the next whole minute, at least 5 s from now.
  const start = Math.ceil((Date.now() + 5_000) / 60_000) * 60_000;
  await new Promise((r) => setTimeout(r, start - Date.now()));
  const drained = drainN > 0 ? await drain(drainProcess, drainN) : undefined;
  const end = start + 60_000;
  if (Date.now() < end + 5_000) await new Promise((r) => setTimeout(r, end + 5_000 - Date.now()));
  await sql`update schedules set paused = true`;
  const rows = await sql`
    select outcome, (fired_at - due_at)::int as lag from schedule_fires
    where due_at >= ${start} and due_at < ${end} and origin = 'scheduled'`;
  const lags = rows.map((r) => r.lag).sort((a, b) => a - b);
  const at = (p) => lags[Math.min(lags.length - 1, Math.floor((p / 100) * lags.length))] ?? null;
  const outcomes = {};
  for (const r of rows) outcomes[r.outcome] = (outcomes[r.outcome] ?? 0) + 1;
  const [{ completed }] = await sql`
    select count(*)::int as completed from instances where process = 'bench_scheduled' and status = 'completed'`;
  return { n, fires: rows.length, expected: n, outcomes, lagP50: at(50), lagP99: at(99), lagMax: lags.at(-1) ?? null, completed, drained };
}

/** The result line. */
export function schedulesLine(r, drainRate) {
  const beside =
    r.drained === undefined
      ? ""
      : `; drain beside them ${r.drained.rate.toFixed(0)} instances/s (${r.drained.n} roots) vs ${drainRate === undefined ? "—" : drainRate.toFixed(0)} without schedules`;
  return (
    `schedules ${String(r.n).padStart(6)} every minute: ${r.fires} fires in the measured minute (expected ${r.expected}; ${JSON.stringify(r.outcomes)}), ` +
    `fire lag due→recorded p50 ${r.lagP50} ms, p99 ${r.lagP99} ms, max ${r.lagMax} ms` +
    beside
  );
}
