import { type Json, parseJson, stringifyJson } from "@baton/expr";
import { asc, eq, sql } from "drizzle-orm";
import type { Clock } from "../../clock.js";
import { storedDefinition } from "../../definitions/store.js";
import { conflict, notFound } from "../../refusal.js";
import { type Db, inTransaction } from "../../storage/db.js";
import { externalize, resolveRefs } from "../../storage/objects.js";
import { instances, taskVisits } from "../../storage/schema/index.js";
import { sqlTextArray } from "../../storage/sql-arrays.js";
import { appendLogs } from "../audit-log.js";
import { isSettled } from "../statuses.js";
import { type JournalRow, resetPoint } from "../visits/fold.js";
import { VISIT_COLUMNS, VISIT_ROW_TYPES, type VisitRow } from "../visits/journal-rows.js";
import { lockTree } from "./lock.js";

// The reset verb (docs/safe-change.md "Reset"): a root goes back to a task it entered (or one its
// definition reaches from one) with the state it had there, rebuilt from the visit journal.

/** What a reset did (the answer of POST /instances/{id}/reset). */
export interface ResetResult {
  outcome: "reset";
  /** The root's status after the call: `running`, or `paused` for a paused tree. */
  status: "running" | "paused";
  /** Rows changed: the root and the children cancelled. */
  instances: number;
  task: string;
  /** The root's new visit of `task`. */
  task_epoch: number;
  /** The visit the state comes from, and whether `task` itself was entered there. */
  restored_from: { task_epoch: number; entered: boolean };
  /** Outputs the root had that the restored state does not (they stay in the audit log). */
  dropped: string[];
  /** Children spawned after the point: live ones cancelled (with their trees), settled ones detached. */
  children: { cancelled: number; detached: number };
}

export interface ResetOptions {
  force: boolean;
  /** Land the root paused (to upgrade it before it runs, docs/safe-change.md); a paused root stays paused anyway. */
  paused?: boolean;
  /** --object-threshold: the restored state is stored like an advance's. */
  objectThresholdBytes: number;
  /** Spelled in the refusal of a record too large to keep (--limit-visit-record-bytes). */
  visitRecordFlag: string;
}

const RESETTABLE = new Set(["failed", "raised", "completed", "paused"]);

/**
 * Resets the tree of `rootId` to `target` in one transaction over the locked tree. Refused
 * (409) unless the root is failed, raised, completed or paused, and for an only_once task
 * entered from the point on unless `force`. No write of an advance can land on a root in those
 * statuses (pump/commit.ts fences on running, pausing, cancelling), and the root's `lease_epoch`
 * moves too, so an advance still computing on a stalled replica lands nothing once the root
 * runs again. Live children spawned after the point are cancelled, with their subtrees, at once
 * even when a worker holds one: its write is fenced out by the status, as it is discarded anyway.
 */
export async function resetTree(
  db: Db,
  clock: Clock,
  rootId: string,
  target: string,
  actor: string | null,
  options: ResetOptions,
): Promise<ResetResult> {
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
    if (root === undefined) throw notFound(`instance ${rootId} does not exist`);
    if (!RESETTABLE.has(root.status))
      throw conflict(
        `instance ${rootId} is ${root.status}; reset acts on a failed, raised, completed or paused instance (pause a running one first; a pausing one is still finishing its task)`,
      );
    const definition = await storedDefinition(db, root.process, root.version, tx);
    if (definition === undefined) throw conflict(`process "${root.process}" version ${root.version} cannot be read`);
    if (!definition.tasks.some((t) => t.id === target))
      throw notFound(`process "${root.process}" version ${root.version} has no task "${target}"`);

    const [stored] = await tx.select({ state: instances.state }).from(instances).where(eq(instances.id, rootId));
    const current = (await resolveRefs(tx, parseJson(stored!.state))) as {
      input?: Json;
      outputs?: { [task: string]: Json };
      _children?: { [task: string]: Json };
    };
    const journal: JournalRow[] = await tx
      .select({
        taskEpoch: taskVisits.taskEpoch,
        task: taskVisits.task,
        kind: taskVisits.kind,
        fromEpoch: taskVisits.fromEpoch,
        fromTask: taskVisits.fromTask,
        output: taskVisits.output,
        children: taskVisits.children,
        error: taskVisits.error,
        snapshot: taskVisits.snapshot,
        whole: taskVisits.whole,
      })
      .from(taskVisits)
      .where(eq(taskVisits.instanceId, rootId))
      .orderBy(asc(taskVisits.taskEpoch));
    const point = resetPoint(
      journal,
      {
        id: rootId,
        task: root.task,
        taskEpoch: root.taskEpoch,
        outputs: current.outputs ?? {},
        children: current._children ?? {},
      },
      definition,
      target,
      options.visitRecordFlag,
    );

    // The only_once rule of retry (docs/language.md#only-once): a task entered from the point on
    // may have had its effect; the root's own failed task did not when its code is pre.*.
    if (!options.force) {
      const onlyOnce = new Set(definition.tasks.filter((t) => t.only_once === true).map((t) => t.id));
      const neverLeft = (e: { task: string; epoch: number }) =>
        e.epoch === root.taskEpoch && (root.errorCode ?? "").startsWith("pre.");
      const risky = point.rerun.find((e) => onlyOnce.has(e.task) && !neverLeft(e));
      if (risky !== undefined)
        throw conflict(
          `instance ${rootId} entered only_once task "${risky.task}" (visit ${risky.epoch}) after the point it would go back to; its call may have taken effect, so reset it only with force=true`,
        );
    }

    // Children spawned after the point: the root's own from `childrenFrom` on, with their subtrees.
    const childrenOf = new Map<string, typeof rows>();
    for (const r of rows)
      if (r.parentId !== null) childrenOf.set(r.parentId, [...(childrenOf.get(r.parentId) ?? []), r]);
    const after = (childrenOf.get(rootId) ?? []).filter((c) => (c.parentTaskEpoch ?? 0) >= point.childrenFrom);
    const subtree: typeof rows = [];
    const walk = (r: (typeof rows)[number]) => {
      subtree.push(r);
      for (const c of childrenOf.get(r.id) ?? []) walk(c);
    };
    for (const c of after) walk(c);
    const cancelled = subtree.filter((r) => !isSettled(r.status));
    if (cancelled.length > 0)
      await tx.execute(sql`
        UPDATE instances SET status = 'cancelled', requested = NULL, wake_at = NULL, updated_at = ${now}
        WHERE id = ANY(${sqlTextArray(cancelled.map((r) => r.id))})`);

    const state: { [key: string]: Json } = {
      input: current.input ?? null,
      outputs: point.state.outputs,
      _children: point.state.children,
    };
    if (point.state.error !== undefined) state._error = point.state.error;
    const storedState = await externalize(tx, clock, state, options.objectThresholdBytes);
    const taskEpoch = root.taskEpoch + 1;
    const status = root.status === "paused" || options.paused === true ? "paused" : "running";
    // lease_epoch moves: a write of an advance whose lease lapsed (a stalled replica) is fenced out.
    await tx.execute(sql`
      UPDATE instances SET status = ${status}, phase = NULL, task = ${target}, task_epoch = ${taskEpoch},
        retry_count = 0, state = ${stringifyJson(storedState)}, output = NULL, error_code = NULL, error_message = NULL,
        wake_at = ${now}, lease_epoch = lease_epoch + 1, lease_owner = NULL, lease_expires_at = NULL,
        previous_owner = NULL, attempts = 0, requested = NULL, pending_children = 0, updated_at = ${now}
      WHERE id = ${rootId}`);
    await tx.execute(
      sql`DELETE FROM external_waits WHERE instance_id = ANY(${sqlTextArray([rootId, ...cancelled.map((r) => r.id)])})`,
    );
    const record: VisitRow = {
      instance_id: rootId,
      task_epoch: taskEpoch,
      task: target,
      kind: "reset",
      from_epoch: point.epoch,
      from_task: null,
      output: null,
      children: null,
      error: point.state.error === undefined ? null : stringifyJson(point.state.error),
      snapshot: stringifyJson({ outputs: point.state.outputs, _children: point.state.children }),
      whole: true,
      created_at: now,
    };
    await tx.execute(sql`
      INSERT INTO task_visits (${sql.raw(VISIT_COLUMNS)})
      SELECT * FROM jsonb_to_recordset(${JSON.stringify([record])}::jsonb) AS v(${sql.raw(VISIT_ROW_TYPES)})`);

    const dropped = Object.keys(current.outputs ?? {}).filter((task) => !(task in point.state.outputs));
    const detached = subtree.length - cancelled.length;
    await appendLogs(tx, clock, [
      {
        instanceId: rootId,
        rootId,
        level: "info",
        event: "instance.reset",
        message: `reset to task "${target}" with the state of ${point.entered ? "its first entry" : "the task that leads there"} (visit ${point.epoch}); was ${root.status} at task "${root.task}"`,
        task: target,
        actor,
        data: {
          from_task: root.task,
          from_status: root.status,
          restored_from: point.epoch,
          dropped,
          children_cancelled: cancelled.length,
          children_detached: detached,
          force: options.force,
          paused: status === "paused",
        },
      },
      ...cancelled.map((r) => ({
        instanceId: r.id,
        rootId,
        level: "info" as const,
        event: "instance.cancelled",
        message: `cancelled: spawned after the point its root ${rootId} was reset to`,
        task: r.task,
        actor,
      })),
    ]);
    return {
      outcome: "reset",
      status,
      instances: 1 + cancelled.length,
      task: target,
      task_epoch: taskEpoch,
      restored_from: { task_epoch: point.epoch, entered: point.entered },
      dropped,
      children: { cancelled: cancelled.length, detached },
    };
  });
}
