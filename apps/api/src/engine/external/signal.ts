import type { Json } from "@baton/expr";
import { eq } from "drizzle-orm";
import { Refusal } from "../../refusal.js";
import type { Clock } from "../../clock.js";
import { type Db, inTransaction } from "../../storage/db.js";
import { externalWaits, instances } from "../../storage/schema/index.js";
import { appendLogs } from "../audit-log.js";
import { isSettled } from "../statuses.js";
import { checkOutcome, deliver, describe, type Outcome, outcomeData, requireTask } from "./delivery.js";
import { bufferedSignals, bufferSignal } from "./signal-buffer.js";

// Signal: the answer half of external tasks addressed by instance and task instead of by claim
// token (outcomes.ts resolves by token). Delivery itself is shared with resolve (delivery.ts),
// so a signalled outcome routes exactly like a resolved one.

export type SignalResult = { delivered: true; buffered: false } | { delivered: false; buffered: true };

/** How picky a signal is (extensions, docs/api.md "Signal only if waiting"). */
export interface SignalGuard {
  /** An unarmed task is a 409 instead of a buffered outcome. */
  onlyIfWaiting?: boolean;
  /** The visit (`task_epoch`) the outcome answers: any other visit, waiting or not, is a 409. Implies onlyIfWaiting. */
  taskEpoch?: number;
  /** Buffered outcomes one instance may hold (--limit-buffered-signals); one more is a 409. */
  maxBuffered?: number;
}

/**
 * Delivers an outcome to `task` of an instance: now when the task is armed, else buffered FIFO
 * until it next arms. A guard (SignalGuard) turns "not armed" or "armed for another visit" into
 * a 409 and buffers nothing: the decision is taken under the same row lock as the delivery, so
 * no visit can start or end between the check and the write.
 */
export async function signalExternalTask(
  db: Db,
  clock: Clock,
  instanceId: string,
  taskId: string,
  outcome: Outcome,
  actor: string | null,
  guard: SignalGuard = {},
): Promise<SignalResult> {
  return inTransaction(db, async (tx) => {
    const [row] = await tx.select().from(instances).where(eq(instances.id, instanceId.toLowerCase())).for("update");
    if (row === undefined) throw new Refusal("not_found", `instance ${instanceId} does not exist`);
    const found = await requireTask(db, tx, row.process, row.version, taskId);
    const { task } = found;
    if (task.action?.type !== "external") {
      throw new Refusal(
        "not_found",
        `task "${taskId}" of process "${row.process}" version ${row.version} is not an external task (its action is ${task.action?.type ?? "none"})`,
      );
    }
    if (isSettled(row.status) || row.status === "cancelling") {
      throw new Refusal(
        "conflict",
        `instance ${row.id} is ${row.status} and will never wait on task "${taskId}" again`,
      );
    }
    const checked = checkOutcome(found, outcome);
    const [wait] = await tx.select().from(externalWaits).where(eq(externalWaits.instanceId, row.id)).for("update");
    const armed =
      row.phase === "external" &&
      row.task === taskId &&
      wait !== undefined &&
      wait.taskEpoch === row.taskEpoch &&
      wait.task === taskId;
    if (armed && guard.taskEpoch !== undefined && guard.taskEpoch !== row.taskEpoch) {
      throw new Refusal(
        "conflict",
        `task "${taskId}" of instance ${row.id} waits in another visit (task_epoch ${row.taskEpoch}) than the one this signal answers (task_epoch ${guard.taskEpoch}); nothing was delivered or kept for a later visit`,
      );
    }
    if (armed) {
      await deliver(
        tx,
        clock,
        { id: row.id, rootId: row.rootId, task: taskId, taskEpoch: row.taskEpoch },
        checked,
        actor,
        "signal",
      );
      return { delivered: true, buffered: false };
    }
    if (guard.onlyIfWaiting || guard.taskEpoch !== undefined) {
      const option = guard.taskEpoch === undefined ? "only_if_waiting" : `task_epoch ${guard.taskEpoch}`;
      throw new Refusal(
        "conflict",
        `task "${taskId}" of instance ${row.id} is not waiting now (the instance is ${row.status}${row.phase ? ` in phase ${row.phase}` : ""} at task "${row.task}"); with ${option} nothing was delivered or kept for a later visit`,
      );
    }
    // Counted under the row lock every signal of this instance takes, so the bound is exact.
    if (guard.maxBuffered !== undefined && (await bufferedSignals(tx, row.id)) >= guard.maxBuffered)
      throw new Refusal(
        "conflict",
        `instance ${row.id} already holds ${guard.maxBuffered} buffered signals, the most allowed (--limit-buffered-signals, docs/limits.md); nothing was buffered: signal again once its tasks have taken some`,
      );
    await bufferSignal(tx, row.id, taskId, checked as unknown as Json, actor, clock.now());
    await appendLogs(tx, clock, [
      {
        instanceId: row.id,
        rootId: row.rootId,
        level: "info",
        event: "external.buffered",
        message: `${describe(checked)} for task "${taskId}" signalled; buffered until the task waits`,
        task: taskId,
        actor,
        data: outcomeData(checked),
      },
    ]);
    return { delivered: false, buffered: true };
  });
}
