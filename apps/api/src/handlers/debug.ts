import type { ActionHandlers } from "../http/action-handler.js";
import { unsupported } from "../refusal.js";

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
    if (advance > 0) clock.advance(advance);
    return { body: { count: await engine.tick() } };
  },
} satisfies ActionHandlers;
