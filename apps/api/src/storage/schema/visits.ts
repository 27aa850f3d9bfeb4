import { bigint, boolean, integer, pgTable, primaryKey, text } from "drizzle-orm/pg-core";

/**
 * The visit journal (docs/safe-change.md "The visit journal"): one row per task entry of an
 * instance, written with the advance (or verb) that made it, only if that write lands. A row
 * holds what the task left (`from_task`, visit `from_epoch`) had changed — its output and its
 * children as they stood, SQL NULL for absent — and the `error` root of the entry, so the state
 * on entry to any recorded visit is the fold of the rows up to it. A reset writes a `reset` row
 * whose `snapshot` is the whole state it restored; a retry writes a `retry` row (a new visit of
 * the same task, nothing changed). Deleted with its instance (retention).
 */
export const taskVisits = pgTable(
  "task_visits",
  {
    instanceId: text("instance_id").notNull(),
    taskEpoch: integer("task_epoch").notNull(),
    task: text("task").notNull(),
    /** `enter`, `retry` or `reset`. */
    kind: text("kind").notNull(),
    fromEpoch: integer("from_epoch"),
    fromTask: text("from_task"),
    /** JSON text of `outputs.<from_task>` on leaving it; null when absent. */
    output: text("output"),
    /** JSON text of `_children.<from_task>` on leaving it; null when absent. */
    children: text("children"),
    /** JSON text of the entry's `error` root; null on a normal entry. */
    error: text("error"),
    /** A reset's whole restored `{outputs, _children}`, JSON text. */
    snapshot: text("snapshot"),
    /** False: the values passed --limit-visit-record-bytes and were not kept. */
    whole: boolean("whole").notNull().default(true),
    createdAt: bigint("created_at", { mode: "number" }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.instanceId, t.taskEpoch] })],
);
