// Over 300 lines on purpose: pause, resume, cancel and retry share the tree lock, the
// lease-aware status rules and their audit lines, and must stay consistent with each other.
import type { Json } from "@baton/expr";
import { and, eq, sql } from "drizzle-orm";
import { sqlTextArray } from "../../storage/sql-arrays.js";
import type { Clock } from "../../storage/clock.js";
import { type Db, rowsOf, inTransaction } from "../../storage/db.js";
import { instances } from "../../storage/schema/index.js";
import { storedDefinition } from "../../definitions/store.js";
import { conflict } from "../../refusal.js";
import { appendLogs, type LogEntry } from "../audit-log.js";
import { isSettled } from "../statuses.js";
import { lockTree } from "./lock.js";

export type LifecycleOutcome = "paused" | "pausing" | "resumed" | "cancelled" | "cancelling" | "retried";

/**
 * What a verb did. No `outcome`: there was nothing to do. A draining outcome (`pausing`,
 * `cancelling`): a worker still holds rows and the verb completes when its write lands.
 * The handler turns this into 204 / 202 / 200 (docs/api.md).
 */
export interface LifecycleResult {
  outcome?: LifecycleOutcome;
  /** The root's status after the call. */
  status: string;
  /** Rows changed. */
  instances: number;
}

interface ChangedRow {
  id: string;
  status: string;
  task: string;
}

const leaseLive = (now: number) =>
  sql`(lease_owner IS NOT NULL AND lease_expires_at IS NOT NULL AND lease_expires_at > ${now})`;

function changedRows(result: unknown): ChangedRow[] {
  return rowsOf<Record<string, unknown>>(result).map((r) => ({
    id: String(r.id),
    status: String(r.status),
    task: String(r.task),
  }));
}

async function rootStatus(tx: Db, rootId: string): Promise<string> {
  const [row] = await tx.select({ status: instances.status }).from(instances).where(eq(instances.id, rootId));
  return row?.status ?? "unknown";
}

function logsFor(
  rows: ChangedRow[],
  rootId: string,
  actor: string | null,
  describe: (row: ChangedRow) => { event: string; message: string },
): LogEntry[] {
  return rows.map((row) => ({ instanceId: row.id, rootId, level: "info", actor, task: row.task, ...describe(row) }));
}

/** How one stopping verb (pause or cancel) reads: which rows it takes and what it says. */
interface StopVerb {
  /** The UPDATE over the tree's rows; must return id, status, task of each changed row. */
  update: (tx: Db, rootId: string, now: number) => Promise<unknown>;
  /** The status a row held by a worker is left in until that worker's write lands. */
  draining: "pausing" | "cancelling";
  stopped: "paused" | "cancelled";
  verb: "pause" | "cancel";
}

/** Runs a stopping verb in one transaction: 200 stopped, 202 still draining, 204 nothing to do. */
async function stopTree(
  db: Db,
  clock: Clock,
  rootId: string,
  actor: string | null,
  stop: StopVerb,
): Promise<LifecycleResult> {
  return inTransaction(db, async (tx) => {
    await lockTree(tx, rootId);
    const rows = changedRows(await stop.update(tx, rootId, clock.now()));
    const who = actor ?? "an operator";
    await appendLogs(
      tx,
      clock,
      logsFor(rows, rootId, actor, (row) =>
        row.status === stop.stopped
          ? { event: `instance.${stop.stopped}`, message: `${stop.stopped} by ${who}` }
          : {
              event: `instance.${stop.draining}`,
              message: `${stop.verb} requested by ${who}; task "${row.task}" is still in flight`,
            },
      ),
    );
    const status = await rootStatus(tx, rootId);
    const draining = await countStatus(tx, rootId, stop.draining);
    if (rows.length === 0 && draining === 0) return { status, instances: 0 };
    return draining > 0
      ? { outcome: stop.draining, status, instances: rows.length }
      : { outcome: stop.stopped, status, instances: rows.length };
  });
}

/** Running rows stop at their next task boundary: at once when no worker holds them, else `pausing` until its write lands. */
export function pauseTree(db: Db, clock: Clock, rootId: string, actor: string | null): Promise<LifecycleResult> {
  return stopTree(db, clock, rootId, actor, {
    verb: "pause",
    stopped: "paused",
    draining: "pausing",
    update: (tx, id, now) => {
      const live = leaseLive(now);
      return tx.execute(sql`
        UPDATE instances
        SET status = CASE WHEN ${live} THEN 'pausing' ELSE 'paused' END,
            requested = CASE WHEN ${live} THEN 'pause' ELSE requested END,
            updated_at = ${now}
        WHERE root_id = ${id} AND status = 'running'
        RETURNING id, status, task`);
    },
  });
}

/** Every live row ends `cancelled`; one a worker holds becomes `cancelling` until that worker's write lands. */
export function cancelTree(db: Db, clock: Clock, rootId: string, actor: string | null): Promise<LifecycleResult> {
  return stopTree(db, clock, rootId, actor, {
    verb: "cancel",
    stopped: "cancelled",
    draining: "cancelling",
    update: (tx, id, now) => {
      const live = leaseLive(now);
      return tx.execute(sql`
        UPDATE instances
        SET status = CASE WHEN ${live} THEN 'cancelling' ELSE 'cancelled' END,
            requested = CASE WHEN ${live} THEN 'cancel' ELSE NULL END,
            wake_at = CASE WHEN ${live} THEN wake_at ELSE NULL END,
            updated_at = ${now}
        WHERE root_id = ${id} AND status IN ('running', 'pausing', 'paused', 'failing')
        RETURNING id, status, task`);
    },
  });
}

/** Paused rows run again where they stopped (a due timer fires at once); a `pausing` row just keeps going. */
export async function resumeTree(db: Db, clock: Clock, rootId: string, actor: string | null): Promise<LifecycleResult> {
  return inTransaction(db, async (tx) => {
    const now = clock.now();
    await lockTree(tx, rootId);
    const before = await rootStatus(tx, rootId);
    if (isSettled(before) || before === "cancelling") {
      throw conflict(`instance ${rootId} is ${before} and cannot be resumed`);
    }
    const rows = changedRows(
      await tx.execute(sql`
        UPDATE instances SET status = 'running', requested = NULL, updated_at = ${now}
        WHERE root_id = ${rootId} AND status IN ('paused', 'pausing')
        RETURNING id, status, task`),
    );
    await appendLogs(
      tx,
      clock,
      logsFor(rows, rootId, actor, () => ({
        event: "instance.resumed",
        message: `resumed by ${actor ?? "an operator"}`,
      })),
    );
    const status = await rootStatus(tx, rootId);
    if (rows.length === 0) return { status, instances: 0 };
    return { outcome: "resumed", status, instances: rows.length };
  });
}

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
            ? `retried by ${actor ?? "an operator"}: waits again at task "${r.task}" for ${waiting.get(r.id)} revived child${waiting.get(r.id) === 1 ? "" : "ren"} (was ${r.errorCode ?? "failed"})`
            : `retried by ${actor ?? "an operator"} at task "${r.task}" (was ${r.errorCode || "failed"})${force ? " with force=true" : ""}`,
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

async function countStatus(tx: Db, rootId: string, status: string): Promise<number> {
  const result = await tx.execute(
    sql`SELECT count(*)::int AS n FROM instances WHERE root_id = ${rootId} AND status = ${status}`,
  );
  return Number(rowsOf<{ n: number }>(result)[0]?.n ?? 0);
}
