// `pnpm bench --events N` (docs/performance.md "Events"): N parked roots of the drain workload's
// process, with a subscription to their completions pointing at a receiver in this process, are
// released on the draining server; it measures the drain beside the deliveries, delivered
// events/s (first release to last delivery) and the lag from each event's commit (its payload's
// `timestamp`) to its arrival.
import { createServer } from "node:http";

/** The process whose completions the subscription reports: the drain workload's routing tasks. */
export function eventsDefinition(drainDef) {
  return { ...drainDef, name: "bench_events" };
}

export async function eventsRun({ call, base, n, drain, log }) {
  const arrivals = [];
  const receiver = createServer((req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      const at = Date.now();
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      arrivals.push({ at, lag: at - Date.parse(body.timestamp), id: req.headers["webhook-id"] });
      res.writeHead(204);
      res.end();
    });
  });
  await new Promise((r) => receiver.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${receiver.address().port}/events`;
  await call(base, "PUT", "/api/subscriptions/bench-events", { url, events: ["instance.completed"], process: "bench_events" });
  const t0 = Date.now();
  const drained = await drain("bench_events", n);
  const deadline = Date.now() + 120_000;
  while (arrivals.length < n && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  await call(base, "DELETE", "/api/subscriptions/bench-events");
  await new Promise((r) => receiver.close(r));
  const lags = arrivals.map((a) => a.lag).sort((a, b) => a - b);
  const at = (p) => lags[Math.min(lags.length - 1, Math.floor((p / 100) * lags.length))] ?? null;
  const last = arrivals.at(-1)?.at ?? t0;
  log(`events: ${arrivals.length} of ${n} delivered`);
  return {
    n,
    delivered: arrivals.length,
    distinct: new Set(arrivals.map((a) => a.id)).size,
    rate: arrivals.length / Math.max(0.001, (last - t0) / 1000),
    lagP50: at(50),
    lagP99: at(99),
    drained,
  };
}

/** The result line. */
export function eventsLine(r, drainRate) {
  return (
    `events   ${r.rate.toFixed(0).padStart(7)} delivered/s  (${r.delivered} of ${r.n} completions, ${r.distinct} distinct webhook-ids), ` +
    `lag commit→received p50 ${r.lagP50} ms, p99 ${r.lagP99} ms; drain with the subscription ${r.drained.rate.toFixed(0)} instances/s ` +
    `vs ${drainRate === undefined ? "—" : drainRate.toFixed(0)} without`
  );
}
