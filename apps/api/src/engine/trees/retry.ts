import type { Json } from "@baton/expr";
import { and, eq, sql } from "drizzle-orm";
import { storedDefinition } from "../../definitions/store.js";
import { conflict } from "../../refusal.js";
import type { Clock } from "../../clock.js";
import { type Db, inTransaction } from "../../storage/db.js";
import { instances } from "../../storage/schema/index.js";
import { sqlTextArray } from "../../storage/sql-arrays.js";
import { appendLogs } from "../audit-log.js";
import type { LifecycleResult } from "./lifecycle.js";
import { lockTree } from "./lock.js";
import { VISIT_COLUMNS, VISIT_ROW_TYPES, type VisitRow } from "../visits/journal-rows.js";

/**
 * Revives a failed tree where it died: each instance whose own task failed (not one failed
 * only because a child of its current spawn failed) runs that task once more — a new task
 * visit (task_epoch + 1, so a new Idempotency-Key) that keeps its retry count, so the attempt
 * is one beyond its on_error budget. Every ancestor that failed with it goes back to waiting
 * for its children (phase `children`, its counter = the children revived under it), so when
 * they settle it collects them as on the first run; siblings that completed keep their
 * outcome. Refused unless the root is `failed`, and for an only_once task whose call may have
 * left unless `force` (docs/language.md#only-once).
 */
export async function retryTree(
  db: Db,
  clock: Clock,
  rootId: string,
  actor: string | null,
  force: boolean,
): Promise<LifecycleResult> {
  return inTransaction(db, async (tx) => {
    const now = clock.now();
    await lockTree(tx, rootId);
    const rows = await tx
      .select({
        id: instances.id,
        parentId: instances.parentId,
        parentTaskEpoch: instances.parentTaskEpoch,
        status: instances.status,
        task: instances.task,
        taskEpoch: instances.taskEpoch,
        errorCode: instances.errorCode,
        process: instances.process,
        version: instances.version,
      })
      .from(instances)
      .where(eq(instances.rootId, rootId));
    const root = rows.find((r) => r.id === rootId);
    if (root === undefined) throw conflict(`instance ${rootId} does not exist`);
    if (root.status !== "failed") {
      throw conflict(
        root.status === "cancelled"
          ? `instance ${rootId} is cancelled; a cancelled instance is terminal and cannot be retried`
          : `instance ${rootId} is ${root.status}; only a failed instance can be retried`,
      );
    }

    // Walk down from the root through failed rows whose current spawn has failed children.
    type Row = (typeof rows)[number];
    const failedChildrenOf = new Map<string, Row[]>();
    for (const c of rows) {
      if (c.parentId === null || c.status !== "failed") continue;
      failedChildrenOf.set(c.parentId, [...(failedChildrenOf.get(c.parentId) ?? []), c]);
    }
    const byId = new Map(rows.map((r) => [r.id, r]));
    const diedHere: Row[] = [];
    const waiting = new Map<string, number>();
    const walk = (r: Row) => {
      const kids = (failedChildrenOf.get(r.id) ?? []).filter((c) => c.parentTaskEpoch === r.taskEpoch);
      if (kids.length === 0) {
        diedHere.push(r);
        return;
      }
      waiting.set(r.id, kids.length);
      for (const k of kids) walk(k);
    };
    walk(root);

    // One definition read per (process, version, task), not per row: a wide tree has thousands.
    const onlyOnce = new Map<string, Promise<boolean>>();
    const isOnlyOnceTask = (r: Row) => {
      const key = `${r.process}\u0000${r.version}\u0000${r.task}`;
      if (!onlyOnce.has(key)) onlyOnce.set(key, isOnlyOnce(db, tx, r.process, r.version, r.task));
      return onlyOnce.get(key)!;
    };
    for (const r of diedHere) {
      const code = r.errorCode ?? "";
      if (!force && !code.startsWith("pre.") && (await isOnlyOnceTask(r))) {
        throw conflict(
          `instance ${r.id === rootId ? rootId : `${r.id} (in the tree of ${rootId})`} failed on only_once task "${r.task}" with ${code || "an error"}; its call may have taken effect, so retry it only with force=true`,
        );
      }
    }
    await tx
      .update(instances)
      .set({
        status: "running",
        phase: null,
        wakeAt: now,
        errorCode: null,
        errorMessage: null,
        taskEpoch: sql`${instances.taskEpoch} + 1`,
        // A fresh budget of attempts: engine.crashed counts claims since the last write.
        attempts: 0,
        requested: null,
        updatedAt: now,
      })
      .where(
        // One array parameter, not one per id: a tree's rows fit however many there are.
        and(sql`${instances.id} = ANY(${sqlTextArray(diedHere.map((r) => r.id))})`, eq(instances.status, "failed")),
      );
    // A retry is a new visit of the same task with the state unchanged: its journal row keeps
    // the chain of visits a reset rebuilds a state along (docs/safe-change.md "The visit journal").
    const retried: VisitRow[] = diedHere.map((r) => ({
      instance_id: r.id,
      task_epoch: r.taskEpoch + 1,
      task: r.task,
      kind: "retry",
      from_epoch: r.taskEpoch,
      from_task: r.task,
      output: null,
      children: null,
      error: null,
      snapshot: null,
      whole: true,
      created_at: now,
    }));
    await tx.execute(sql`
      INSERT INTO task_visits (${sql.raw(VISIT_COLUMNS)})
      SELECT * FROM jsonb_to_recordset(${JSON.stringify(retried)}::jsonb) AS v(${sql.raw(VISIT_ROW_TYPES)})
      ON CONFLICT DO NOTHING`);
    for (const [id, pending] of waiting) {
      await tx
        .update(instances)
        .set({
          status: "running",
          phase: "children",
          wakeAt: null,
          errorCode: null,
          errorMessage: null,
          pendingChildren: pending,
          requested: null,
          updatedAt: now,
        })
        .where(and(eq(instances.id, id), eq(instances.status, "failed")));
    }
    const data: Record<string, Json> = { force };
    await appendLogs(
      tx,
      clock,
      [...waiting.keys()]
        .map((id) => byId.get(id)!)
        .concat(diedHere)
        .map((r) => ({
          instanceId: r.id,
          rootId,
          level: "info" as const,
          event: "instance.retried",
          message: waiting.has(r.id)
            ? `retried: waits again at task "${r.task}" for ${waiting.get(r.id)} revived child${waiting.get(r.id) === 1 ? "" : "ren"} (was ${r.errorCode ?? "failed"})`
            : `retried at task "${r.task}" (was ${r.errorCode || "failed"})${force ? " with force=true" : ""}`,
          task: r.task,
          actor,
          data: { ...data, code: r.errorCode },
        })),
    );
    return { outcome: "retried", status: "running", instances: diedHere.length + waiting.size };
  });
}

async function isOnlyOnce(db: Db, tx: Db, name: string, version: number, task: string): Promise<boolean> {
  const definition = await storedDefinition(db, name, version, tx);
  return definition?.tasks.some((t) => t.id === task && t.only_once === true) ?? false;
}
