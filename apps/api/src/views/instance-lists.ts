import type { InstanceFilters, ListInstanceLogsQuery } from "@baton/actions";
import { and, eq, gte, inArray, isNull, like, lt, type SQL, sql } from "drizzle-orm";
import { sqlTextArray } from "../storage/sql-arrays.js";
import { levelsFrom } from "../engine/audit-log.js";
import { invalid, notFound } from "../refusal.js";
import type { Db } from "../storage/db.js";
import { instances, logs } from "../storage/schema/index.js";
import { readInstanceForView } from "./instance-read.js";
import type { InstanceRecord, LogRecord } from "./instance-view.js";
import type { ListSpec } from "./pagination.js";
import { serverSecrets } from "./secrets-lookup.js";

// The read side of instances: which rows a view or a list shows, and their keyset orders
// (docs/instances.md "Lists"). The handlers shape the reply; what is read is decided here.

/** The row and the secrets its views redact, in one statement when the secrets are cached. */
export async function findForView(db: Db, id: string): Promise<{ row: InstanceRecord; secrets: string[] }> {
  const found = await readInstanceForView(db, id);
  if (found === undefined) throw notFound(`instance "${id}" does not exist`);
  return { row: found.row, secrets: await serverSecrets(db, process.env, found.definitionsSeen) };
}

export async function findInstance(db: Db, id: string): Promise<InstanceRecord> {
  const [row] = await db.select().from(instances).where(eq(instances.id, id)).limit(1);
  if (!row) throw notFound(`instance "${id}" does not exist`);
  return row;
}

export const instanceList: ListSpec<InstanceRecord> = {
  list: "instances",
  sorts: {
    created_at: { columns: [instances.createdAt, instances.id], values: (r) => [r.createdAt, r.id] },
    updated_at: { columns: [instances.updatedAt, instances.id], values: (r) => [r.updatedAt, r.id] },
  },
  defaultSort: "created_at",
  defaultOrder: "desc",
};

export const logList: ListSpec<LogRecord> = {
  list: "logs",
  sorts: { created_at: { columns: [logs.createdAt, logs.id], values: (r) => [r.createdAt, r.id] } },
  defaultSort: "created_at",
  defaultOrder: "desc",
};

/**
 * `text` as a LIKE pattern that matches it literally: `_` (common in codes) and `%` are
 * wildcards of LIKE, escaped with its default escape character, the backslash.
 */
export function likeLiteral(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/**
 * The rows a scoped caller's lists show (docs/auth.md "Scopes"): `only` is the process names
 * its scopes cover (auth/scope.ts scopeFilter; null: no filter). The same predicate, and the
 * same index, as a `process` filter; a child is listed only when its root's process is covered
 * too (a tree belongs to its root's process), checked by primary key on the root's row.
 */
export function scopedRows(only: readonly string[] | null, rootsOnly = false): SQL | undefined {
  if (only === null) return undefined;
  if (only.length === 0) return sql`false`;
  // One name is exactly the `process` filter's predicate, and a roots-only list needs no root check.
  const own =
    only.length === 1 ? eq(instances.process, only[0]!) : sql`${instances.process} = ANY(${sqlTextArray(only)})`;
  if (rootsOnly) return own;
  return sql`(${own} AND (${instances.parentId} IS NULL OR EXISTS (SELECT 1 FROM instances scope_root WHERE scope_root.id = ${instances.rootId} AND scope_root.process = ANY(${sqlTextArray(only)}))))`;
}

/**
 * The SQL of GET /instances's filters (the registry has validated their types); bulk verbs
 * select their roots with the same filters. `only`: scopedRows.
 */
export function instanceFilters(
  query: Partial<InstanceFilters>,
  only: readonly string[] | null = null,
): SQL | undefined {
  const where: Array<SQL | undefined> = [scopedRows(only, query.parent_id === undefined && query.children !== true)];
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
  if (query.error_code_prefix !== undefined)
    where.push(like(instances.errorCode, `${likeLiteral(query.error_code_prefix)}%`));
  if (query.process !== undefined) where.push(eq(instances.process, query.process));
  if (query.version !== undefined && query.version !== 0) where.push(eq(instances.version, query.version));
  if (query.key !== undefined) where.push(eq(instances.key, query.key));
  // Flow-control waits (docs/flow-control.md): a wait row exists while the instance waits.
  if (query.waiting_for !== undefined || query.wait_key !== undefined) {
    const reason = query.waiting_for === undefined ? sql`` : sql` AND w.reason = ${query.waiting_for}`;
    const key = query.wait_key === undefined ? sql`` : sql` AND w.key = ${query.wait_key}`;
    where.push(sql`EXISTS (SELECT 1 FROM flow_waits w WHERE w.instance_id = ${instances.id}${reason}${key})`);
  }
  // A parent's children are never roots: parent_id implies children=true.
  if (query.parent_id !== undefined) where.push(eq(instances.parentId, String(query.parent_id).toLowerCase()));
  else if (query.children !== true) where.push(isNull(instances.parentId));
  if (query.created_after !== undefined) where.push(gte(instances.createdAt, query.created_after));
  if (query.created_before !== undefined) where.push(lt(instances.createdAt, query.created_before));
  if (query.updated_after !== undefined) where.push(gte(instances.updatedAt, query.updated_after));
  if (query.updated_before !== undefined) where.push(lt(instances.updatedAt, query.updated_before));
  return and(...where);
}

/** The SQL of GET /instances/{id}/logs's filters: a root's whole tree unless `flat`, a child's own lines. */
export function logFilters(row: InstanceRecord, query: Partial<ListInstanceLogsQuery>): SQL | undefined {
  const wholeTree = row.parentId === null && query.flat !== true;
  const where: Array<SQL | undefined> = [wholeTree ? eq(logs.rootId, row.id) : eq(logs.instanceId, row.id)];
  if (query.level !== undefined) where.push(inArray(logs.level, levelsFrom(query.level)));
  if (query.created_after !== undefined) where.push(gte(logs.createdAt, query.created_after));
  if (query.created_before !== undefined) where.push(lt(logs.createdAt, query.created_before));
  return and(...where);
}
