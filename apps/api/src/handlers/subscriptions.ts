// Subscriptions (docs/events.md): thin handlers over engine/events.
import {
  deleteSubscription,
  listDeliveries,
  listSubscriptions,
  putSubscription,
  readSubscription,
  redeliver,
  resumeSubscription,
  rotateSecret,
} from "../engine/index.js";
import type { ActionHandlers } from "../http/action-handler.js";
import { iso } from "../format.js";
import { invalid } from "../refusal.js";

export const subscriptionHandlers = {
  putSubscription: async ({ params, body, principal }, services) => {
    const { created, secret } = await putSubscription(services, params.name, body, principal.actor);
    const view = await readSubscription(services.db, params.name);
    return { body: secret === undefined ? { ...view, created } : { ...view, created, secret } };
  },

  listSubscriptions: async ({ query }, { db, config }) => ({
    body: await listSubscriptions(db, query, config.limits.pageCount),
  }),

  getSubscription: async ({ params }, { db }) => ({ body: await readSubscription(db, params.name) }),

  deleteSubscription: async ({ params }, { db }) => ({ body: { deleted: await deleteSubscription(db, params.name) } }),

  rotateSubscriptionSecret: async ({ params, body }, services) => {
    const rotated = await rotateSecret(services, params.name, { overlapMs: body?.overlap_ms, secret: body?.secret });
    return { body: { secret: rotated.secret, previous_secret_until: iso(rotated.previousUntil) } };
  },

  resumeSubscription: async ({ params }, { db, clock, engine }) => {
    await resumeSubscription(db, clock, params.name);
    engine.wake();
    return { body: await readSubscription(db, params.name) };
  },

  listDeliveries: async ({ params, query }, { db, config }) => ({
    body: await listDeliveries(db, params.name, query, config.limits.pageCount),
  }),

  redeliver: async ({ params, body }, services) => {
    let which: { deliveryId: number } | { from: number; to: number };
    if (body.delivery_id !== undefined) {
      if (body.from !== undefined || body.to !== undefined)
        throw invalid("give either delivery_id or from and to, not both", [
          { path: "body", message: "delivery_id with from/to" },
        ]);
      which = { deliveryId: Number(body.delivery_id) };
    } else if (body.from !== undefined && body.to !== undefined) {
      which = { from: Date.parse(body.from), to: Date.parse(body.to) };
      if (which.to < which.from)
        throw invalid("to is before from; expected from <= to", [{ path: "body.to", message: "before from" }]);
    } else
      throw invalid("redeliver needs delivery_id, or both from and to", [
        { path: "body", message: "expected delivery_id, or from and to" },
      ]);
    const queued = await redeliver(services, params.name, which);
    services.engine.wake();
    return { body: { queued } };
  },
} satisfies ActionHandlers;
