import { getTableColumns } from "drizzle-orm";
import { type Db, queryRows } from "../storage/db.js";
import { instances } from "../storage/schema/index.js";
import type { InstanceRecord } from "./instance-view.js";

// The read behind GET /instances/{id} and its detail: the row, its root's process and how many
// definitions are stored, in ONE statement and one snapshot (docs/instances.md "Redaction").
// The last two let the view's secrets come from a cache (secrets-lookup.ts viewSecrets)
// instead of reading the tree's processes on every view.

const columns = Object.entries(getTableColumns(instances));

const READ = `
SELECT ${columns.map(([, column]) => `i.${column.name}`).join(", ")},
       (SELECT r.process FROM instances r WHERE r.id = i.root_id) AS view_root_process,
       (SELECT count(*) FROM definitions) AS view_definitions_seen
FROM instances i WHERE i.id = $1`;

export interface InstanceForView {
  row: InstanceRecord;
  /** The process of the tree's root (the row's own for a root). */
  rootProcess: string;
  /** Definitions stored when the row was read (they are never deleted: a count that moved means a new one). */
  definitionsSeen: number;
}

export async function readInstanceForView(db: Db, id: string): Promise<InstanceForView | undefined> {
  const [raw] = await queryRows<Record<string, unknown>>(db, READ, [id]);
  if (raw === undefined) return undefined;
  const row: Record<string, unknown> = {};
  for (const [key, column] of columns) {
    const value = raw[column.name];
    row[key] = value === null || value === undefined ? null : column.mapFromDriverValue(value);
  }
  return {
    row: row as InstanceRecord,
    rootProcess: String(raw.view_root_process ?? (row as InstanceRecord).process),
    definitionsSeen: Number(raw.view_definitions_seen),
  };
}
