// Inbound hooks (docs/events.md "Hooks"): thin handlers over engine/hooks. receiveHook's body
// arrives unparsed (http/app.ts): the signature covers its exact bytes.
import { deleteHook, hookView, putHook, readHook, receiveHook } from "../engine/index.js";
import { ApiError } from "../http/api-error.js";
import type { ActionHandlers } from "../http/action-handler.js";
import { hooks } from "../storage/schema/index.js";
import { type ListSpec, mapPage, paginate } from "../views/pagination.js";

type Row = typeof hooks.$inferSelect;

const hookList: ListSpec<Row> = {
  list: "hooks",
  sorts: { name: { columns: [hooks.name], values: (r) => [r.name] } },
  defaultSort: "name",
  defaultOrder: "asc",
};

/** The one answer to a request that is not verified, whatever the reason (docs/events.md "Refusals"). */
const NOT_VERIFIED = "the request is not verified";

export const hookHandlers = {
  putHook: async ({ params, body, principal }, services) => {
    const { created } = await putHook(services, params.name, body, principal.actor);
    const { last_requests: _, ...view } = await readHook(services.db, params.name);
    return { body: { ...view, created } };
  },

  listHooks: async ({ query }, { db, config }) => {
    const page = await paginate(db, hooks, undefined, hookList, query, config.limits.pageCount);
    return {
      body: mapPage(page, (r) =>
        hookView({
          name: r.name,
          verifier: r.verifier,
          spec: r.spec,
          actor: r.actor,
          created_at: r.createdAt,
          updated_at: r.updatedAt,
        }),
      ),
    };
  },

  getHook: async ({ params }, { db }) => ({ body: await readHook(db, params.name) }),

  deleteHook: async ({ params }, { db }) => ({ body: { deleted: await deleteHook(db, params.name) } }),

  receiveHook: async ({ params, query, body, headers }, services) => {
    const answer = await receiveHook(services, params.name, {
      headers,
      query: query as Record<string, string>,
      body: (body as { unparsed: string }).unparsed,
    });
    // An unverified request's name is the sender's text: never a label (cardinality).
    services.metrics?.engine.hookReceived(
      answer.verified ? params.name : "-",
      answer.verified ? answer.receipt.outcome : "unverified",
    );
    if (!answer.verified) throw new ApiError("unauthenticated", NOT_VERIFIED);
    return { body: answer.receipt };
  },
} satisfies ActionHandlers;
