// The stopping and resuming verbs on a whole tree (pause, cancel, resume): they share the tree
// lock, the lease-aware status rules and their audit lines. Retry is retry.ts.
import { eq, sql } from "drizzle-orm";
import type { Clock } from "../../clock.js";
import { type Db, rowsOf, inTransaction } from "../../storage/db.js";
import { instances } from "../../storage/schema/index.js";
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
    await appendLogs(
      tx,
      clock,
      logsFor(rows, rootId, actor, (row) =>
        row.status === stop.stopped
          ? { event: `instance.${stop.stopped}`, message: stop.stopped }
          : {
              event: `instance.${stop.draining}`,
              message: `${stop.verb} requested; task "${row.task}" is still in flight`,
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
        message: "resumed",
      })),
    );
    const status = await rootStatus(tx, rootId);
    if (rows.length === 0) return { status, instances: 0 };
    return { outcome: "resumed", status, instances: rows.length };
  });
}

async function countStatus(tx: Db, rootId: string, status: string): Promise<number> {
  const result = await tx.execute(
    sql`SELECT count(*)::int AS n FROM instances WHERE root_id = ${rootId} AND status = ${status}`,
  );
  return Number(rowsOf<{ n: number }>(result)[0]?.n ?? 0);
}

/** A cheap read first: the write transaction is only worth it when some row qualifies. */
async function hasAbandoned(db: Db, now: number): Promise<boolean> {
  const result = await db.execute(sql`
    SELECT 1 AS found FROM instances
    WHERE status IN ('pausing', 'cancelling') AND lease_expires_at IS NOT NULL AND lease_expires_at <= ${now}
    LIMIT 1`);
  return rowsOf(result).length > 0;
}

/**
 * Pausing/cancelling rows whose worker died before its write: the request lands now, with its
 * audit line. The lease owner is kept so the next claim still sees that the interrupted attempt
 * may have run.
 */
export async function finaliseAbandoned(db: Db, clock: Clock): Promise<void> {
  if (!(await hasAbandoned(db, clock.now()))) return;
  await inTransaction(db, async (tx) => {
    const now = clock.now();
    const result = await tx.execute(sql`
      UPDATE instances
      SET status = CASE WHEN status = 'cancelling' THEN 'cancelled' ELSE 'paused' END,
          wake_at = CASE WHEN status = 'cancelling' THEN NULL ELSE wake_at END,
          requested = NULL, updated_at = ${now}
      WHERE status IN ('pausing', 'cancelling') AND lease_expires_at IS NOT NULL AND lease_expires_at <= ${now}
      RETURNING id, root_id, task, status`);
    await appendLogs(
      tx,
      clock,
      rowsOf<Record<string, unknown>>(result).map((r) => ({
        instanceId: String(r.id),
        rootId: String(r.root_id),
        level: "info" as const,
        event: `instance.${String(r.status)}`,
        message: `${String(r.status)}: the worker that held the lease stopped before the task boundary`,
        task: String(r.task),
      })),
    );
  });
}
