import { getTableColumns } from "drizzle-orm";
import { type InstanceInsert, instances } from "../storage/schema/index.js";
import { storableText } from "../storage/text.js";
import type { AdvanceResult } from "./advance/advance-types.js";

// The columns of an instance row as the engine's SQL statements read them from JSON
// (`jsonb_to_record(set)`): the one mapping of a row's fields to column names, and the one
// mapping of an advance's result to the columns it writes, used by every write of an advance
// (pump/commit.ts, starts/start-statement.ts, external/resolve-advanced-write.ts).

type Key = keyof InstanceInsert;
const COLUMNS = getTableColumns(instances);

/**
 * `row`'s fields under their column names, as `jsonb_to_record(set)` reads them. With `keys`,
 * exactly those columns, a field the row leaves out taking the column's default (or null).
 */
export function instanceRecord(row: Partial<InstanceInsert>, keys?: readonly Key[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of keys ?? (Object.keys(row) as Key[])) {
    const column = COLUMNS[key];
    out[column.name] = row[key] ?? (column.hasDefault ? column.default : null) ?? null;
  }
  return out;
}

/** `keys` as a statement names them: the column list, and the `AS r(…)` definitions of jsonb_to_record(set). */
export function recordShape(keys: readonly Key[]): { names: string; definitions: string } {
  const columns = keys.map((key) => COLUMNS[key]);
  return {
    names: columns.map((c) => c.name).join(", "),
    definitions: columns.map((c) => `${c.name} ${c.getSQLType()}`).join(", "),
  };
}

/** The columns an advance's result sets on its row. */
export type AdvancedColumns = Required<
  Pick<
    InstanceInsert,
    | "status"
    | "phase"
    | "task"
    | "taskEpoch"
    | "retryCount"
    | "state"
    | "output"
    | "errorCode"
    | "errorMessage"
    | "wakeAt"
  >
>;

/** What an advance's result writes on its instance row, `state` and `output` as they are stored. */
export function advancedColumns(
  result: AdvanceResult,
  stored: { state: string; output: string | null },
): AdvancedColumns {
  return {
    status: result.status,
    phase: result.phase ?? null,
    task: result.task,
    taskEpoch: result.taskEpoch,
    retryCount: result.retryCount,
    state: stored.state,
    output: stored.output,
    errorCode: result.errorCode,
    errorMessage: result.errorMessage === null ? null : storableText(result.errorMessage),
    wakeAt: result.wakeAt,
  };
}
