import { stringifyJson } from "@baton/expr";
import type { VisitRecord } from "../advance/visits.js";

// The rows of the visit journal (storage/schema/visits.ts) as every write of an advance inserts
// them: the pump's batch (pump/commit.ts), the start statement (starts/start-statement.ts) and
// the one-version resolve (external/resolve-advanced-write.ts). Each inserts them in its own
// statement, joined to the rows that statement actually wrote, so a fenced-out advance leaves no
// journal row; ON CONFLICT DO NOTHING because a row is keyed by its visit, which the one write
// that entered it owns.

/** One journal row under its column names, as `jsonb_to_recordset` reads it (VISIT_ROW_TYPES). */
export interface VisitRow {
  instance_id: string;
  task_epoch: number;
  task: string;
  kind: "enter" | "retry" | "reset";
  from_epoch: number | null;
  from_task: string | null;
  output: string | null;
  children: string | null;
  error: string | null;
  snapshot: string | null;
  whole: boolean;
  created_at: number;
}

export const VISIT_COLUMNS =
  "instance_id, task_epoch, task, kind, from_epoch, from_task, output, children, error, snapshot, whole, created_at";
/** The `AS v(…)` of a jsonb_to_recordset over VisitRow records. */
export const VISIT_ROW_TYPES =
  "instance_id text, task_epoch integer, task text, kind text, from_epoch integer, from_task text, output text, children text, error text, snapshot text, whole boolean, created_at bigint";

/** The journal rows of one advance's entries into tasks. */
export function visitRows(instanceId: string, visits: readonly VisitRecord[] | undefined, now: number): VisitRow[] {
  return (visits ?? []).map((v) => ({
    instance_id: instanceId,
    task_epoch: v.taskEpoch,
    task: v.task,
    kind: "enter",
    from_epoch: v.fromEpoch,
    from_task: v.fromTask,
    output: v.output === undefined ? null : stringifyJson(v.output),
    children: v.children === undefined ? null : stringifyJson(v.children),
    error: v.error === undefined ? null : stringifyJson(v.error),
    snapshot: null,
    whole: v.whole !== false,
    created_at: now,
  }));
}

/**
 * A CTE body inserting the journal rows given as the jsonb parameter `param` (an SQL text such
 * as `$8`), only those whose instance is in `landed` (a CTE with an `id` column): the rows the
 * statement wrote.
 */
export function insertVisitsFrom(param: string, landed: string): string {
  return `INSERT INTO task_visits (${VISIT_COLUMNS})
  SELECT ${VISIT_COLUMNS.split(", ")
    .map((c) => `v.${c}`)
    .join(", ")}
  FROM jsonb_to_recordset(${param}::jsonb) AS v(${VISIT_ROW_TYPES})
  WHERE v.instance_id IN (SELECT id FROM ${landed})
  ON CONFLICT DO NOTHING`;
}
