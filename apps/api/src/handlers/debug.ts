import type { ActionHandlers } from "../http/action-handler.js";
import { invalid, unsupported } from "../refusal.js";
import { LATEST_CLOCK_MS } from "../clock.js";

export const debugHandlers = {
  health: async (_request, { database, dbKind, workerId, engine, config }) => {
    let reachable = true;
    try {
      await database.ping();
    } catch {
      reachable = false;
    }
    return {
      status: reachable ? 200 : 503,
      body: {
        status: reachable ? "ok" : "unavailable",
        worker_id: workerId,
        database: dbKind,
        lease_age_ms: engine.leaseAgeMs(),
        manual_tick: config.pollMs === 0,
      },
    };
  },

  // docs/deploy.md "Probes": liveness never awaits the database or anything the event loop queues behind.
  liveness: async (_request, { workerId }) => ({
    body: { status: "ok", worker_id: workerId, uptime_ms: Math.floor(process.uptime() * 1000) },
  }),

  readiness: async (_request, { database, dbKind, workerId, shuttingDown }) => {
    let reason: "database" | "stopping" | undefined = shuttingDown?.() ? "stopping" : undefined;
    if (reason === undefined) {
      try {
        await database.ping();
      } catch {
        reason = "database";
      }
    }
    return {
      status: reason === undefined ? 200 : 503,
      body: {
        status: reason === undefined ? "ready" : "unavailable",
        worker_id: workerId,
        database: dbKind,
        ...(reason === undefined ? {} : { reason }),
      },
    };
  },

  metrics: async (_request, { metrics }) => {
    if (!metrics) throw unsupported("this server was started without metrics");
    return {
      contentType: metrics.registry.contentType,
      body: await metrics.registry.metrics(),
    };
  },

  tick: async ({ body }, { clock, engine, config }) => {
    if (!config.tickEnabled) throw unsupported("POST /tick is disabled on this server (--no-tick)");
    const advance = body?.advance_ms ?? 0;
    if (advance > clock.maxAdvance())
      throw invalid(
        `advance_ms ${advance} would move the server clock past ${new Date(LATEST_CLOCK_MS).toISOString()}, the latest instant an instance id holds; it may move ${clock.maxAdvance()} ms more (it has moved ${clock.offset()} ms since the server started)`,
        [{ path: "body.advance_ms", message: `at most ${clock.maxAdvance()} more` }],
      );
    if (advance > 0) clock.advance(advance);
    return { body: { count: await engine.tick() } };
  },
} satisfies ActionHandlers;
