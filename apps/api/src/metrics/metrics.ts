// Over 300 lines on purpose: every metric family of the server and the engine hooks that feed them, in one
// registry, so docs/metrics.md has one place to be checked against.
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";
import type { PoolGauge } from "../storage/pool-gauge.js";
import { boundedHostLabel, boundedProcessLabel } from "./host-label.js";

// prom-client is the Node ecosystem's standard Prometheus client: it writes the text format,
// and its default metrics cover the process (CPU, memory, GC, event-loop lag, handles).
// Every family here is listed in docs/metrics.md; a test scrapes and checks each one.

/** Seconds: from a millisecond advance to a stuck 30 s fetch. */
const DURATION_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const BATCH_BUCKETS = [1, 2, 5, 10, 25, 50, 100, 250, 500];

/** An exemplar's labels: the span the observation was made in (docs/metrics.md "Exemplars"). */
export interface TraceExemplar {
  trace_id: string;
  span_id: string;
}

/** What the engine reports (engine/pump): plain functions, so a test or a tool may pass NO_ENGINE_METRICS. */
export interface EngineMetrics {
  claimRound(rows: number, reclaimed: number): void;
  /** `process` is bounded (docs/metrics.md "Bounded process label"); `trace` is the advance's span while tracing. */
  advanced(taskKind: string, outcome: string, seconds: number, process: string, trace?: TraceExemplar): void;
  onlyOnceInterrupted(): void;
  committed(batchSize: number, seconds: number): void;
  /** `host` as URL.host gives it (docs/metrics.md: bounded host label). */
  fetched(host: string, statusClass: string, seconds: number, trace?: TraceExemplar): void;
  /** A schedule's fire (docs/schedules.md "Fires"); `lagSeconds` from due to fired, for a started calendar fire. */
  scheduleFired(origin: string, outcome: string, lagSeconds?: number): void;
  /** Flow control (docs/flow-control.md): a wait queued, slots and permits granted by a pass. */
  flowWaiting(reason: string): void;
  flowGranted(reason: string, count: number): void;
  /** A delivery attempt (docs/events.md "Where to see them"); `lagSeconds` from the event's commit to a 2xx. */
  eventDelivered(subscription: string, outcome: string, lagSeconds?: number): void;
  /** A request to a hook: started, signalled or unverified. */
  hookReceived(hook: string, outcome: string): void;
}

export const NO_ENGINE_METRICS: EngineMetrics = {
  claimRound: () => {},
  advanced: () => {},
  onlyOnceInterrupted: () => {},
  committed: () => {},
  fetched: () => {},
  scheduleFired: () => {},
  flowWaiting: () => {},
  flowGranted: () => {},
  eventDelivered: () => {},
  hookReceived: () => {},
};

/** The sampler's figures (sampler.ts), set every interval from one query. */
export interface SampledFigures {
  instances: Array<{ status: string; phase: string; count: number }>;
  due: number;
  oldestDueAgeSeconds: number;
  expiredLeases: number;
  externalWaiting: number;
  externalClaimed: number;
  oldestExternalWaitingSeconds: number;
  /** Flow-control waits per reason: instances waiting, keys with waits, the longest queue on one key. */
  flowWaits: Array<{ reason: string; waiting: number; keys: number; longest: number }>;
}

export type Metrics = ReturnType<typeof createMetrics>;

/**
 * prom-client's `nodejs_active_{handles,requests,resources}_total` are gauges named like
 * counters, which `promtool check metrics` flags (docs/metrics.md "Lint"); the same counts stay
 * exposed per type as `nodejs_active_handles`, `nodejs_active_requests`, `nodejs_active_resources`.
 */
export function dropMisnamedDefaults(registry: Registry): void {
  for (const name of ["nodejs_active_handles_total", "nodejs_active_requests_total", "nodejs_active_resources_total"])
    registry.removeSingleMetric(name);
}

/**
 * With `exemplars` (tracing on, docs/metrics.md "Exemplars") the registry writes OpenMetrics and
 * the duration histograms carry the trace id of an observation in each bucket; without, the
 * Prometheus text format 0.0.4 as always.
 */
export function createMetrics(options: { pool?: PoolGauge; exemplars?: boolean } = {}) {
  const exemplars = options.exemplars === true;
  const registry = new Registry();
  // The declared types bind a registry to one format; the runtime switches it (prom-client 15).
  if (exemplars) registry.setContentType(Registry.OPENMETRICS_CONTENT_TYPE as unknown as typeof registry.contentType);
  collectDefaultMetrics({ register: registry });
  dropMisnamedDefaults(registry);
  const r = [registry];

  const instances = new Gauge({
    name: "baton_instances",
    help: "Live instances by status and phase (sampled from the database; the same on every replica)",
    labelNames: ["status", "phase"],
    registers: r,
  });
  const due = new Gauge({
    name: "baton_instances_due",
    help: "Running instances due now and not leased",
    registers: r,
  });
  const queueLag = new Gauge({
    name: "baton_queue_lag_seconds",
    help: "Age of the oldest due-but-unclaimed instance (0 when none is waiting)",
    registers: r,
  });
  const expiredLeases = new Gauge({
    name: "baton_leases_expired",
    help: "Running instances whose lease expired without a write and that no worker has reclaimed yet",
    registers: r,
  });
  const external = new Gauge({
    name: "baton_external_tasks",
    help: "External tasks by state: waiting (unclaimed, or its claim expired) or claimed",
    labelNames: ["state"],
    registers: r,
  });
  const externalOldest = new Gauge({
    name: "baton_external_task_oldest_waiting_seconds",
    help: "Age of the oldest waiting external task (0 when none waits)",
    registers: r,
  });
  const flowWaiting = new Gauge({
    name: "baton_flow_waiting",
    help: "Instances waiting for flow control, by reason (concurrency, rate_limit)",
    labelNames: ["reason"],
    registers: r,
  });
  const flowKeys = new Gauge({
    name: "baton_flow_waiting_keys",
    help: "Keys with at least one instance waiting for flow control, by reason",
    labelNames: ["reason"],
    registers: r,
  });
  const flowLongest = new Gauge({
    name: "baton_flow_waiting_longest_queue",
    help: "The most instances waiting on one key, by reason",
    labelNames: ["reason"],
    registers: r,
  });
  const sampleAge = new Gauge({
    name: "baton_metrics_sampled_timestamp_seconds",
    help: "When the instance and external-task figures above were last sampled (unix time)",
    registers: r,
  });

  const advances = new Counter({
    name: "baton_advances_total",
    help: "Advances run by this replica, by process (bounded, see docs/metrics.md), task kind and outcome",
    labelNames: ["process", "task_kind", "outcome"],
    registers: r,
  });
  const advanceSeconds = new Histogram({
    name: "baton_advance_duration_seconds",
    help: "Time from claim to committed write of one advance, by process, task kind and outcome",
    labelNames: ["process", "task_kind", "outcome"],
    buckets: DURATION_BUCKETS,
    registers: r,
    enableExemplars: exemplars,
  });
  const claimRounds = new Counter({ name: "baton_claim_rounds_total", help: "Claim rounds run", registers: r });
  const claimedRows = new Counter({ name: "baton_claimed_rows_total", help: "Instances claimed", registers: r });
  const reclaims = new Counter({
    name: "baton_lease_reclaims_total",
    help: "Instances claimed after another worker's lease expired without a write",
    registers: r,
  });
  const onlyOnce = new Counter({
    name: "baton_only_once_interruptions_total",
    help: "only_once tasks found interrupted on reclaim (raised only_once.interrupted)",
    registers: r,
  });
  const commits = new Counter({ name: "baton_commits_total", help: "Advance write batches committed", registers: r });
  const batchSize = new Histogram({
    name: "baton_commit_batch_size",
    help: "Advances per write batch",
    buckets: BATCH_BUCKETS,
    registers: r,
  });
  const commitSeconds = new Histogram({
    name: "baton_commit_duration_seconds",
    help: "Time to write one batch",
    buckets: DURATION_BUCKETS,
    registers: r,
  });
  const fetches = new Counter({
    name: "baton_fetch_calls_total",
    help: "fetch task calls by host (bounded, see docs/metrics.md) and status class",
    labelNames: ["host", "status_class"],
    registers: r,
  });
  const fetchSeconds = new Histogram({
    name: "baton_fetch_duration_seconds",
    help: "fetch task call duration by host and status class",
    labelNames: ["host", "status_class"],
    buckets: DURATION_BUCKETS,
    registers: r,
    enableExemplars: exemplars,
  });
  const externalCalls = new Counter({
    name: "baton_external_calls_total",
    help: "External-task API calls by call (claim, renew, release, resolve, resolve_batch, signal) and outcome",
    labelNames: ["call", "outcome"],
    registers: r,
  });
  const scopeRefusals = new Counter({
    name: "baton_scope_refusals_total",
    help: "Requests of scoped credentials refused (403) or answered as missing (404) because the target is outside their scopes, by the endpoint's scope rule",
    labelNames: ["rule"],
    registers: r,
  });
  const httpRequests = new Counter({
    name: "baton_http_requests_total",
    help: "HTTP requests by action (the registry name; unmatched for no route) and status",
    labelNames: ["action", "status"],
    registers: r,
  });
  const httpSeconds = new Histogram({
    name: "baton_http_request_duration_seconds",
    help: "HTTP request duration by action and status",
    labelNames: ["action", "status"],
    buckets: DURATION_BUCKETS,
    registers: r,
    enableExemplars: exemplars,
  });
  const pool = options.pool;
  new Gauge({
    name: "baton_db_pool_size",
    help: "Connections the database pool may open",
    registers: r,
    collect() {
      this.set(pool?.size ?? 0);
    },
  });
  new Gauge({
    name: "baton_db_pool_in_use",
    help: "Statements and transactions holding a pool connection",
    registers: r,
    collect() {
      this.set(pool ? Math.min(pool.inFlight(), pool.size) : 0);
    },
  });
  new Gauge({
    name: "baton_db_pool_waiting",
    help: "Statements and transactions waiting for a pool connection",
    registers: r,
    collect() {
      this.set(pool ? Math.max(0, pool.inFlight() - pool.size) : 0);
    },
  });
  const pruned = new Counter({
    name: "baton_retention_pruned_total",
    help: "Rows deleted by retention (--retention, --log-retention), by table",
    labelNames: ["table"],
    registers: r,
  });
  // Zero series for the label values known up front, so that rate() and alerts see them from the start.
  for (const table of ["instances", "logs", "external_waits", "external_claims", "signals", "task_visits", "objects"])
    pruned.inc({ table }, 0);
  for (const state of ["waiting", "claimed"]) external.set({ state }, 0);

  const scheduleFires = new Counter({
    name: "baton_schedule_fires_total",
    help: "Schedule fires recorded by this replica, by origin (scheduled, trigger, backfill) and outcome (started, skipped, buffered, failed, missed)",
    labelNames: ["origin", "outcome"],
    registers: r,
  });
  const scheduleLag = new Histogram({
    name: "baton_schedule_fire_lag_seconds",
    help: "Time from a scheduled fire being due to its instance being started (committed)",
    buckets: DURATION_BUCKETS,
    registers: r,
  });
  const flowWaits = new Counter({
    name: "baton_flow_waits_total",
    help: "Advances this replica parked to wait for a flow-control slot or start permit, by reason (concurrency, rate_limit)",
    labelNames: ["reason"],
    registers: r,
  });
  const flowGrants = new Counter({
    name: "baton_flow_grants_total",
    help: "Flow-control slots and start permits granted by this replica's grant passes, by reason (concurrency, rate_limit)",
    labelNames: ["reason"],
    registers: r,
  });

  const resets = new Counter({
    name: "baton_resets_total",
    help: "Reset verbs on a root (docs/safe-change.md), single or bulk, by outcome (reset, refused)",
    labelNames: ["outcome"],
    registers: r,
  });
  for (const outcome of ["reset", "refused"]) resets.inc({ outcome }, 0);

  const deliveries = new Counter({
    name: "baton_event_deliveries_total",
    help: "Event delivery attempts by this replica, by subscription (at most --limit-subscriptions live) and outcome (delivered, retry, failed)",
    labelNames: ["subscription", "outcome"],
    registers: r,
  });
  const deliveryLag = new Histogram({
    name: "baton_event_delivery_lag_seconds",
    help: "Time from an event being recorded (its change committed) to its delivery being answered 2xx, by subscription",
    labelNames: ["subscription"],
    buckets: [...DURATION_BUCKETS, 60, 300, 3600],
    registers: r,
  });
  const hookRequests = new Counter({
    name: "baton_hook_requests_total",
    help: "Requests to inbound hooks, by hook (at most --limit-hooks live) and outcome (started, signalled, unverified)",
    labelNames: ["hook", "outcome"],
    registers: r,
  });
  const hostLabel = boundedHostLabel();
  const processLabel = boundedProcessLabel();
  // With exemplars on, prom-client's histograms take one object (labels, value, exemplar labels).
  const observe = <L extends string>(
    histogram: Histogram<L>,
    labels: Partial<Record<L, string>>,
    value: number,
    trace: TraceExemplar | undefined,
  ) => {
    // prom-client declares exemplar labels with the metric's own label names; any names are taken.
    if (exemplars) histogram.observe({ labels, value, exemplarLabels: (trace ?? {}) as Partial<Record<L, string>> });
    else histogram.observe(labels, value);
  };

  const engine: EngineMetrics = {
    claimRound(rows, reclaimed) {
      claimRounds.inc();
      claimedRows.inc(rows);
      if (reclaimed > 0) reclaims.inc(reclaimed);
    },
    advanced(taskKind, outcome, seconds, process, trace) {
      const labels = { process: processLabel(process), task_kind: taskKind, outcome };
      advances.inc(labels);
      observe(advanceSeconds, labels, seconds, trace);
    },
    onlyOnceInterrupted: () => onlyOnce.inc(),
    committed(size, seconds) {
      commits.inc();
      batchSize.observe(size);
      commitSeconds.observe(seconds);
    },
    fetched(host, statusClass, seconds, trace) {
      const labels = { host: hostLabel(host), status_class: statusClass };
      fetches.inc(labels);
      observe(fetchSeconds, labels, seconds, trace);
    },
    scheduleFired(origin, outcome, lagSeconds) {
      scheduleFires.inc({ origin, outcome });
      if (lagSeconds !== undefined) scheduleLag.observe(lagSeconds);
    },
    flowWaiting(reason) {
      flowWaits.inc({ reason });
    },
    flowGranted(reason, count) {
      if (count > 0) flowGrants.inc({ reason }, count);
    },
    eventDelivered(subscription, outcome, lag) {
      deliveries.inc({ subscription, outcome });
      if (lag !== undefined) deliveryLag.observe({ subscription }, lag);
    },
    hookReceived: (hook, outcome) => hookRequests.inc({ hook, outcome }),
  };

  return {
    registry,
    engine,
    sampled(figures: SampledFigures, nowMs: number): void {
      instances.reset();
      for (const row of figures.instances) instances.set({ status: row.status, phase: row.phase }, row.count);
      due.set(figures.due);
      queueLag.set(figures.oldestDueAgeSeconds);
      expiredLeases.set(figures.expiredLeases);
      external.set({ state: "waiting" }, figures.externalWaiting);
      external.set({ state: "claimed" }, figures.externalClaimed);
      externalOldest.set(figures.oldestExternalWaitingSeconds);
      for (const reason of ["concurrency", "rate_limit"]) {
        const f = figures.flowWaits?.find((w) => w.reason === reason);
        flowWaiting.set({ reason }, f?.waiting ?? 0);
        flowKeys.set({ reason }, f?.keys ?? 0);
        flowLongest.set({ reason }, f?.longest ?? 0);
      }
      sampleAge.set(nowMs / 1000);
    },
    scopeRefused(rule: string): void {
      scopeRefusals.inc({ rule });
    },
    externalCall(call: string, outcome: string): void {
      externalCalls.inc({ call, outcome });
    },
    http(action: string, status: number, seconds: number, trace?: TraceExemplar): void {
      const labels = { action, status: String(status) };
      httpRequests.inc(labels);
      observe(httpSeconds, labels, seconds, trace);
    },
    pruned(table: string, rows: number): void {
      if (rows > 0) pruned.inc({ table }, rows);
    },
    /** One root's reset: `reset` or `refused` (docs/safe-change.md "Reset"). */
    reset(outcome: "reset" | "refused"): void {
      resets.inc({ outcome });
    },
  };
}

/** `2xx`…`5xx` for an HTTP status; `error` when no status came back (refused, never left, timed out). */
export function statusClass(status: number | undefined): string {
  return status !== undefined && status >= 100 && status < 600 ? `${Math.floor(status / 100)}xx` : "error";
}
