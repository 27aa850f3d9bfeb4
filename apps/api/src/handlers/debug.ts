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

  tick: async ({ body }, { clock, engine, config }) => {
    if (!config.tickEnabled) throw unsupported("POST /tick is disabled on this server (--no-tick)");
    const advance = (body as { advance_ms?: number } | undefined)?.advance_ms ?? 0;
    if (advance > 0) clock.advance(advance);
    return { body: { count: await engine.tick() } };
  },
} satisfies ActionHandlers;
