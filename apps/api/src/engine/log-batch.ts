import { sql } from "drizzle-orm";
import type { Clock } from "../storage/clock.js";
import type { Db } from "../storage/db.js";
import { newId } from "../storage/ids.js";
import { boundedDataText, type LogEntry, MAX_MESSAGE_CHARS } from "./logs.js";

/**
 * appendLogs (engine/logs.ts) for large batches: the same rows (same bounds, ids increasing in
 * array order) sent as ONE jsonb parameter. A multi-row VALUES with ten parameters a row makes
 * the driver parse and plan a new huge statement per batch size, which dominated batch commits.
 */
export async function insertLogBatch(tx: Db, clock: Clock, entries: readonly LogEntry[]): Promise<void> {
  if (entries.length === 0) return;
  const createdAt = clock.now();
  const rows = entries.map((entry) => logRow(entry, createdAt));
  await tx.execute(sql`
    INSERT INTO logs (id, instance_id, root_id, level, event, message, task, actor, data, created_at)
    SELECT id, instance_id, root_id, level, event, message, task, actor, data, created_at
    FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS x(
      id text, instance_id text, root_id text, level text, event text, message text, task text, actor text, data text, created_at bigint)`);
}

/** A logs row as jsonb_to_recordset reads it: bounded message and data, a fresh (increasing) id. */
export function logRow(entry: LogEntry, createdAt: number) {
  return {
    id: newId(createdAt),
    instance_id: entry.instanceId,
    root_id: entry.rootId,
    level: entry.level,
    event: entry.event,
    message:
      entry.message.length <= MAX_MESSAGE_CHARS
        ? entry.message
        : `${entry.message.slice(0, MAX_MESSAGE_CHARS)}… (${entry.message.length - MAX_MESSAGE_CHARS} more chars)`,
    task: entry.task ?? null,
    actor: entry.actor ?? null,
    data: entry.data ? boundedDataText(entry.data) : null,
    created_at: createdAt,
  };
}
