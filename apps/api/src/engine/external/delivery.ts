import { type Json, parseJson, stringifyJson } from "@baton/expr";
import { checkExternalError, checkExternalResult, type Definition, type Task } from "@baton/model";
import { eq, sql } from "drizzle-orm";
import { storedDefinition } from "../../definitions/store.js";
import { refuseFaultyDefinition } from "../../definitions/stored-fault.js";
import { Refusal } from "../../refusal.js";
import type { Clock } from "../../clock.js";
import type { Db } from "../../storage/db.js";
import { externalWaits, instances } from "../../storage/schema/index.js";
import { appendLogs } from "../audit-log.js";

// What resolve and signal (outcomes.ts) share: an outcome checked against the task's
// declaration, the task looked up in its stored definition, and the locking delivery of an
// outcome to the armed visit with its audit line.

/** `{result}` or `{error: {code, message?, data?}}`, exactly one. */
export type Outcome = { result: Json } | { error: Json };

/**
 * The outcome validated against the task's declaration (conformed), or a 400 saying where it does
 * not fit, or that the task's stored version cannot be used (definitions/stored-fault.ts).
 */
export function checkOutcome({ def, version, task }: DefinedTask, outcome: Outcome): Outcome {
  refuseFaultyDefinition(def, version, " and upgrade the instance to it");
  if ("error" in outcome) {
    const checked = checkExternalError(def, task, outcome.error);
    if (!checked.ok)
      throw new Refusal(
        "invalid",
        `the error outcome does not match what task "${task.id}" declares in raises`,
        checked.problems,
      );
    return { error: checked.value as unknown as Json };
  }
  const checked = checkExternalResult(def, task, outcome.result);
  if (!checked.ok)
    throw new Refusal("invalid", `the result does not match the result_schema of task "${task.id}"`, checked.problems);
  return { result: checked.value };
}

/**
 * Records the outcome for the armed visit and makes the instance due; the next advance routes it.
 * The lease epoch moves so a worker advancing the same row right now (its deadline passed) is
 * fenced out: the answer wins over the timeout. A paused row stays paused and continues on resume.
 */
export async function deliver(
  tx: Db,
  clock: Clock,
  target: { id: string; rootId: string; task: string; taskEpoch: number },
  outcome: Outcome,
  actor: string | null,
  via: "resolve" | "signal",
): Promise<void> {
  const now = clock.now();
  const [row] = await tx.select({ state: instances.state }).from(instances).where(eq(instances.id, target.id));
  const state = parseJson(row.state) as { [key: string]: Json };
  state._outcome = { task_epoch: target.taskEpoch, ...(outcome as { [key: string]: Json }) };
  await tx.execute(sql`
    UPDATE instances
    SET state = ${stringifyJson(state)}, phase = NULL, wake_at = ${now},
        status = CASE WHEN status = 'pausing' THEN 'paused' ELSE status END, requested = NULL,
        lease_epoch = lease_epoch + 1, lease_owner = NULL, lease_expires_at = NULL, updated_at = ${now}
    WHERE id = ${target.id}`);
  await tx.delete(externalWaits).where(eq(externalWaits.instanceId, target.id));
  await appendLogs(tx, clock, [
    {
      instanceId: target.id,
      rootId: target.rootId,
      level: "info",
      event: "external.resolved",
      message: resolvedMessage(outcome, target.task, via),
      task: target.task,
      actor,
      data: { via, ...outcomeData(outcome) },
    },
  ]);
}

export function resolvedMessage(outcome: Outcome, task: string, via: "resolve" | "signal"): string {
  return `${describe(outcome)} for task "${task}" delivered by ${via}`;
}

export function describe(outcome: Outcome): string {
  return "error" in outcome ? `error outcome ${String((outcome.error as { code?: Json }).code)}` : "a result";
}

export function outcomeData(outcome: Outcome): Record<string, Json> {
  return "error" in outcome ? { code: (outcome.error as { code: Json }).code } : {};
}

/** A task of a stored definition, with the definition its outcome is checked against. */
export type DefinedTask = { def: Definition; version: number; task: Task };

export async function findTask(
  db: Db,
  tx: Db,
  process: string,
  version: number,
  taskId: string,
): Promise<DefinedTask | undefined> {
  const def = await storedDefinition(db, process, version, tx);
  const task = def?.tasks.find((t) => t.id === taskId);
  return def === undefined || task === undefined ? undefined : { def, version, task };
}

export async function requireTask(
  db: Db,
  tx: Db,
  process: string,
  version: number,
  taskId: string,
): Promise<DefinedTask> {
  const found = await findTask(db, tx, process, version, taskId);
  if (found === undefined)
    throw new Refusal("not_found", `process "${process}" version ${version} has no task "${taskId}"`);
  return found;
}
