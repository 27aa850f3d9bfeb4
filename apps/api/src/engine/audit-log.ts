import { isLosslessNumber, type Json, stringifyJson } from "@baton/expr";
import { LOG_LEVELS, type LogLevel } from "@baton/log";
import { truncate } from "../format.js";
import type { Clock } from "../clock.js";
import type { Db } from "../storage/db.js";
import { newId } from "../storage/ids.js";
import { storableText } from "../storage/text.js";
import { logs } from "../storage/schema/index.js";

// The instance audit trail. Entries are written in the transaction of the change they
// describe, so a dropped (stale) advance leaves no log behind. Callers must never put a
// secret in an entry; the bounds below only keep bodies from bloating the table.

export interface LogEntry {
  instanceId: string;
  rootId: string;
  level: LogLevel;
  /** Dotted event name, e.g. `task.completed`, `instance.paused`. */
  event: string;
  message: string;
  task?: string | null;
  actor?: string | null;
  data?: Record<string, Json> | null;
}

export const MAX_MESSAGE_CHARS = 1000;
export const MAX_DATA_STRING_CHARS = 300;
export const MAX_DATA_BYTES = 4096;

export async function appendLog(tx: Db, clock: Clock, entry: LogEntry): Promise<void> {
  await appendLogs(tx, clock, [entry]);
}

/**
 * Rows one INSERT carries: 10 parameters each, so one statement stays far below PostgreSQL's
 * 65,535 bind parameters however large the tree a verb logs for (docs/limits.md#trees).
 */
const LOG_ROWS_PER_INSERT = 1000;

/** INSERTs of at most LOG_ROWS_PER_INSERT rows; ids increase in array order (UUIDv7 from the service clock). */
export async function appendLogs(tx: Db, clock: Clock, entries: readonly LogEntry[]): Promise<void> {
  if (entries.length === 0) return;
  const createdAt = clock.now();
  const rows = entries.map((entry) => {
    const row = logRow(entry, createdAt);
    return {
      id: row.id,
      instanceId: row.instance_id,
      rootId: row.root_id,
      level: row.level,
      event: row.event,
      message: row.message,
      task: row.task,
      actor: row.actor,
      data: row.data,
      createdAt: row.created_at,
    };
  });
  for (let i = 0; i < rows.length; i += LOG_ROWS_PER_INSERT) {
    await tx.insert(logs).values(rows.slice(i, i + LOG_ROWS_PER_INSERT));
  }
}

/**
 * The JSON text stored in `logs.data`: long strings are cut to MAX_DATA_STRING_CHARS, and
 * if the whole object is still over MAX_DATA_BYTES it is replaced by a note of its size.
 */
export function boundedDataText(data: Record<string, Json>): string {
  const text = stringifyJson(shortenStrings(data));
  if (Buffer.byteLength(text) <= MAX_DATA_BYTES) return text;
  return stringifyJson({ truncated: true, bytes: Buffer.byteLength(stringifyJson(data)) });
}

function shortenStrings(value: Json): Json {
  if (typeof value === "string") return truncate(value, MAX_DATA_STRING_CHARS, "count");
  if (value === null || typeof value !== "object" || isLosslessNumber(value)) return value;
  if (Array.isArray(value)) return value.map(shortenStrings);
  const out: { [key: string]: Json } = {};
  for (const [key, item] of Object.entries(value)) out[key] = shortenStrings(item);
  return out;
}

/** `level` and everything above it (`warn` → warn, error). */
export function levelsFrom(level: LogLevel): LogLevel[] {
  return LOG_LEVELS.slice(LOG_LEVELS.indexOf(level));
}

/**
 * The one builder of a logs row, in the table's column names (jsonb_to_recordset in
 * pump/commit.ts, the start and resolve statements, and appendLogs all take it): a fresh
 * (increasing) id, bounded message and data, text storable in PostgreSQL.
 */
export function logRow(entry: LogEntry, createdAt: number) {
  return {
    id: newId(createdAt),
    instance_id: entry.instanceId,
    root_id: entry.rootId,
    level: entry.level,
    event: entry.event,
    message: storableText(truncate(entry.message, MAX_MESSAGE_CHARS, "count")),
    task: entry.task ?? null,
    actor: entry.actor === undefined || entry.actor === null ? null : storableText(entry.actor),
    data: entry.data ? boundedDataText(entry.data) : null,
    created_at: createdAt,
  };
}
