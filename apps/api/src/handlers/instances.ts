import type { ActivityWindow } from "@baton/actions";
import { parseWrittenJson } from "@baton/expr";
import { redactJsonText, startInstance } from "../engine/index.js";
import { readerOf } from "../services.js";
import { objectReadable, scopeFilter } from "../auth/scope.js";
import { showObjects, shownOutputs } from "../views/objects.js";
import {
  detailView,
  listRow,
  logView,
  redactLogView,
  redactView,
  statusView,
  storedOutput,
} from "../views/instance-view.js";
import { loadObjects } from "../storage/objects.js";
import { countDimensions, countInstances } from "../views/instance-counts.js";
import { instanceActivity } from "../views/instance-activity.js";
import { flowWaitGroups, flowWaitOf } from "../views/flow-waits.js";
import {
  findForView,
  findInstance,
  instanceFilters,
  instanceList,
  logFilters,
  logList,
} from "../views/instance-lists.js";
import { serverSecrets } from "../views/secrets-lookup.js";
import { actorLabels, withActorLabel } from "../views/actor-labels.js";
import type { ActionHandlers } from "../http/action-handler.js";
import { invalid, notFound } from "../refusal.js";
import { mapPage, paginate } from "../views/pagination.js";
import { isUuid } from "../storage/ids.js";
import { instances, logs } from "../storage/schema/index.js";
import { instanceTraceparent, traceIdOf, tracing } from "../tracing/index.js";

const REF = /^[0-9a-f]{64}$/i;

/** The instance id of a path, lower-cased; 400 when it is not a UUID. */
export function instanceIdParam(value: string): string {
  if (!isUuid(value))
    throw invalid(`instance id "${value}" is malformed; expected a UUID such as 019a3c1e-7c2b-7d10-8f00-4b6e2a9d1c55`, [
      { path: "path.id", message: "not a UUID" },
    ]);
  return value.toLowerCase();
}

/** The Idempotency-Key header of a start: 1–255 visible ASCII characters (docs/instances.md). */
function idempotencyKey(value: string | null): string | undefined {
  if (value === null) return undefined;
  if (!/^[\x21-\x7e]{1,255}$/.test(value))
    throw invalid(
      "the Idempotency-Key header must be 1 to 255 visible ASCII characters (no spaces); send a fresh UUID per start",
      [{ path: "header.idempotency-key", message: "expected 1 to 255 visible ASCII characters" }],
    );
  return value;
}

// ---- handlers -------------------------------------------------------------------------

export const instanceHandlers = {
  startInstance: async ({ body, principal, headers, traceParent }, services) => {
    const { replayed, ...started } = await startInstance(
      body,
      principal.actor,
      services,
      idempotencyKey(headers.get("idempotency-key")),
      traceParent,
    );
    return { body: started, headers: replayed ? { "idempotent-replayed": "true" } : undefined };
  },

  getInstance: async ({ params }, services) => {
    const db = readerOf(services);
    const { row, secrets } = await findForView(db, instanceIdParam(params.id!));
    const outputs = await shownOutputs(db, [row], services.config.objectResolveLimitBytes);
    return { body: redactView(statusView(row, outputs.get(row.id)), secrets) };
  },

  getInstanceDetail: async ({ params, query }, services) => {
    const db = readerOf(services);
    const { row, secrets } = await findForView(db, instanceIdParam(params.id!));
    const limit = query.resolve === true ? services.config.objectResolveLimitBytes : -1;
    const shown = await showObjects(db, { state: parseWrittenJson(row.state), output: storedOutput(row) }, limit);
    const view = detailView(row, { state: shown.values.state!, output: shown.values.output, objects: shown.objects });
    const waiting = row.status === "running" || row.status === "paused" ? await flowWaitOf(db, row.id) : undefined;
    return { body: redactView(waiting === undefined ? view : { ...view, waiting_for: waiting }, secrets) };
  },

  listInstances: async ({ query, principal }, services) => {
    const db = readerOf(services);
    const page = await paginate(
      db,
      instances,
      instanceFilters(query, await scopeFilter(db, principal)),
      instanceList,
      query,
      services.config.limits.pageCount,
    );
    const outputs = await shownOutputs(db, page.items, services.config.objectResolveLimitBytes);
    const secrets = await serverSecrets(db, process.env);
    return { body: mapPage(page, (row) => redactView(listRow(row, outputs.get(row.id)), secrets)) };
  },

  instanceActivity: async ({ query, principal }, services) => {
    const db = readerOf(services);
    const window = (query.window ?? "day") as ActivityWindow;
    const only = await scopeFilter(db, principal);
    return { body: await instanceActivity(db, window, services.clock.now(), query, only) };
  },

  listFlowWaits: async ({ query, principal }, services) => {
    const db = readerOf(services);
    return { body: await flowWaitGroups(db, query, await scopeFilter(db, principal)) };
  },

  countInstances: async ({ query, principal }, services) => {
    const db = readerOf(services);
    return { body: await countInstances(db, query, countDimensions(query.by), await scopeFilter(db, principal)) };
  },

  listInstanceLogs: async ({ params, query }, services) => {
    const db = readerOf(services);
    const row = await findInstance(db, instanceIdParam(params.id!));
    const page = await paginate(db, logs, logFilters(row, query), logList, query, services.config.limits.pageCount);
    // Engine entries are redacted when written; this also covers rows written by other paths.
    const secrets = await serverSecrets(db, process.env);
    const label = await actorLabels(
      db,
      page.items.map((r) => r.actor),
    );
    // One trace per tree (docs/tracing.md "Children"): the instance's trace id is every entry's.
    const traced = row.traceParent !== null || tracing() !== undefined;
    const traceId = traced ? traceIdOf(instanceTraceparent(row.traceParent, row.rootId, row.id)) : undefined;
    return {
      body: mapPage(page, (r) => {
        const entry = withActorLabel(redactLogView(logView(r), secrets), label);
        return traceId === undefined ? entry : { ...entry, trace_id: traceId };
      }),
    };
  },

  getObject: async ({ params, principal }, services) => {
    const ref = params.ref!;
    if (!REF.test(ref))
      throw invalid(
        `object ref "${ref}" is malformed; expected 64 hex digits, as listed under objects[].ref of an instance detail`,
        [{ path: "path.ref", message: "not 64 hex digits" }],
      );
    const hit = (await loadObjects(services.db, [ref.toLowerCase()])).get(ref.toLowerCase());
    // Out of scope it is as a missing object (docs/auth.md "Scopes").
    if (!hit || !(await objectReadable(services.db, principal, ref.toLowerCase())))
      throw notFound(`object "${ref}" does not exist`);
    // The stored text is already lossless JSON (stringifyJson); sent as is.
    return {
      body: redactJsonText(hit.text, await serverSecrets(services.db, process.env)),
      contentType: "application/json",
    };
  },
} satisfies ActionHandlers;
