import { parseJson } from "@baton/expr";
import { levelsFrom, redactJsonText, startInstance } from "../engine/index.js";
import { showObjects, shownOutputs } from "../views/objects.js";
import { and, eq, gte, inArray, isNull, lt, type SQL } from "drizzle-orm";
import {
  detailView,
  type InstanceRecord,
  type LogRecord,
  listRow,
  logView,
  redactLogView,
  redactView,
  statusView,
  storedOutput,
} from "../views/instance-view.js";
import { loadObjects } from "../storage/objects.js";
import { countDimensions, countInstances } from "../views/instance-counts.js";
import { readInstanceForView } from "../views/instance-read.js";
import { allSecrets, treeSecrets, viewSecrets } from "../views/secrets-lookup.js";
import type { ActionHandlers, ActionRequest } from "../http/action-handler.js";
import { invalid, notFound } from "../refusal.js";
import { type ListSpec, mapPage, paginate } from "../http/pagination.js";
import type { Db } from "../storage/db.js";
import { isUuid } from "../storage/ids.js";
import { instances, logs } from "../storage/schema/index.js";

const REF = /^[0-9a-f]{64}$/i;

/** The instance id of a path, lower-cased; 400 when it is not a UUID. */
export function instanceIdParam(value: string): string {
  if (!isUuid(value))
    throw invalid(`instance id "${value}" is malformed; expected a UUID such as 019a3c1e-7c2b-7d10-8f00-4b6e2a9d1c55`, [
      { path: "path.id", message: "not a UUID" },
    ]);
  return value.toLowerCase();
}

/** The row and the secrets its views redact, in one statement when the secrets are cached. */
async function findForView(db: Db, id: string): Promise<{ row: InstanceRecord; secrets: string[] }> {
  const found = await readInstanceForView(db, id);
  if (found === undefined) throw notFound(`instance "${id}" does not exist`);
  return { row: found.row, secrets: await viewSecrets(db, process.env, found.rootProcess, found.definitionsSeen) };
}

async function findInstance(db: Db, id: string): Promise<InstanceRecord> {
  const [row] = await db.select().from(instances).where(eq(instances.id, id)).limit(1);
  if (!row) throw notFound(`instance "${id}" does not exist`);
  return row;
}

// ---- lists ----------------------------------------------------------------------------

const instanceList: ListSpec<InstanceRecord> = {
  list: "instances",
  sorts: {
    created_at: { columns: [instances.createdAt, instances.id], values: (r) => [r.createdAt, r.id] },
    updated_at: { columns: [instances.updatedAt, instances.id], values: (r) => [r.updatedAt, r.id] },
  },
  defaultSort: "created_at",
  defaultOrder: "desc",
};

const logList: ListSpec<LogRecord> = {
  list: "logs",
  sorts: { created_at: { columns: [logs.createdAt, logs.id], values: (r) => [r.createdAt, r.id] } },
  defaultSort: "created_at",
  defaultOrder: "desc",
};

/** The SQL of GET /instances's filters (the registry has validated their types). */
export function instanceFilters(query: ActionRequest<"listInstances">["query"]): SQL | undefined {
  const where: Array<SQL | undefined> = [];
  if (query.status !== undefined) {
    const statuses = [...new Set(String(query.status).split(","))];
    where.push(inArray(instances.status, statuses));
  }
  if (query.phase !== undefined) where.push(eq(instances.phase, query.phase));
  if (query.task !== undefined) {
    if (query.process === undefined) {
      throw invalid(`query parameter "task" needs "process" as well: task ids are unique only within a definition`, [
        { path: "query.process", message: `required when "task" is given` },
      ]);
    }
    where.push(eq(instances.task, query.task));
  }
  if (query.error_code !== undefined) where.push(eq(instances.errorCode, query.error_code));
  if (query.process !== undefined) where.push(eq(instances.process, query.process));
  if (query.version !== undefined && query.version !== 0) where.push(eq(instances.version, query.version));
  if (query.key !== undefined) where.push(eq(instances.key, query.key));
  // A parent's children are never roots: parent_id implies children=true.
  if (query.parent_id !== undefined) where.push(eq(instances.parentId, String(query.parent_id).toLowerCase()));
  else if (query.children !== true) where.push(isNull(instances.parentId));
  if (query.created_after !== undefined) where.push(gte(instances.createdAt, query.created_after));
  if (query.created_before !== undefined) where.push(lt(instances.createdAt, query.created_before));
  if (query.updated_after !== undefined) where.push(gte(instances.updatedAt, query.updated_after));
  if (query.updated_before !== undefined) where.push(lt(instances.updatedAt, query.updated_before));
  return and(...where);
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
  startInstance: async ({ body, principal, headers }, services) => {
    const { replayed, ...started } = await startInstance(
      body,
      principal.actor,
      services,
      idempotencyKey(headers.get("idempotency-key")),
    );
    return { body: started, headers: replayed ? { "idempotent-replayed": "true" } : undefined };
  },

  getInstance: async ({ params }, services) => {
    const { row, secrets } = await findForView(services.db, instanceIdParam(params.id!));
    const outputs = await shownOutputs(services.db, [row], services.config.objectResolveLimitBytes);
    return { body: redactView(statusView(row, outputs.get(row.id)), secrets) };
  },

  getInstanceDetail: async ({ params, query }, services) => {
    const { row, secrets } = await findForView(services.db, instanceIdParam(params.id!));
    const limit = query.resolve === true ? services.config.objectResolveLimitBytes : -1;
    const shown = await showObjects(services.db, { state: parseJson(row.state), output: storedOutput(row) }, limit);
    const view = detailView(row, { state: shown.values.state!, output: shown.values.output, objects: shown.objects });
    return { body: redactView(view, secrets) };
  },

  listInstances: async ({ query }, services) => {
    const page = await paginate(services.db, instances, instanceFilters(query), instanceList, query);
    const outputs = await shownOutputs(services.db, page.items, services.config.objectResolveLimitBytes);
    const secrets = await treeSecrets(services.db, process.env, page.items);
    return { body: mapPage(page, (row) => redactView(listRow(row, outputs.get(row.id)), secrets)) };
  },

  countInstances: async ({ query }, services) => ({
    body: await countInstances(services.db, instanceFilters(query), countDimensions(query.by)),
  }),

  listInstanceLogs: async ({ params, query }, services) => {
    const row = await findInstance(services.db, instanceIdParam(params.id!));
    const wholeTree = row.parentId === null && query.flat !== true;
    const where: Array<SQL | undefined> = [wholeTree ? eq(logs.rootId, row.id) : eq(logs.instanceId, row.id)];
    if (query.level !== undefined) where.push(inArray(logs.level, levelsFrom(query.level)));
    if (query.created_after !== undefined) where.push(gte(logs.createdAt, query.created_after));
    if (query.created_before !== undefined) where.push(lt(logs.createdAt, query.created_before));
    const page = await paginate(services.db, logs, and(...where), logList, query);
    // Engine entries are redacted when written; this also covers rows written by other paths.
    const secrets = await allSecrets(services.db, process.env);
    return { body: mapPage(page, (r) => redactLogView(logView(r), secrets)) };
  },

  getObject: async ({ params }, services) => {
    const ref = params.ref!;
    if (!REF.test(ref))
      throw invalid(
        `object ref "${ref}" is malformed; expected the 64 hex digits of a sha256, as listed under objects[].ref of an instance detail`,
        [{ path: "path.ref", message: "not 64 hex digits" }],
      );
    const hit = (await loadObjects(services.db, [ref.toLowerCase()])).get(ref.toLowerCase());
    if (!hit) throw notFound(`object "${ref}" does not exist`);
    // The stored text is already lossless JSON (stringifyJson); sent as is.
    return {
      body: redactJsonText(hit.text, await allSecrets(services.db, process.env)),
      contentType: "application/json",
    };
  },
} satisfies ActionHandlers;
