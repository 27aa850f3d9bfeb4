import { sql } from "drizzle-orm";
import type { Logger } from "@baton/log";
import type { Clock } from "../../clock.js";
import { type Db, inTransaction, rowsOf } from "../../storage/db.js";
import { sqlTextArray } from "../../storage/sql-arrays.js";
import { SETTLED_STATUSES } from "../statuses.js";
import { lockTrees } from "../trees/lock.js";
import { errorText } from "../../loggable-error.js";

// Retention (docs/retention.md): every replica prunes, in small transactions that skip rows
// another replica (or an operator verb) holds, whole root trees settled longer than
// --retention with their logs and wait rows, then objects no instance references, and with
// --log-retention log lines older than that. The bounds below cap one pass.

export interface RetentionLimits {
  /** Trees considered per transaction. */
  treesPerBatch: number;
  /** Trees deleted per pass at most. */
  treesPerPass: number;
  /** Objects checked per pass (those of the pruned trees, then the sweep). */
  objectsPerPass: number;
  /** Log lines deleted per transaction and per pass (--log-retention). */
  logsPerBatch: number;
  logsPerPass: number;
}

export const RETENTION_LIMITS: RetentionLimits = {
  treesPerBatch: 20,
  treesPerPass: 200,
  objectsPerPass: 500,
  logsPerBatch: 2_000,
  logsPerPass: 20_000,
};

/** A pass every this often per replica; sooner (PASS_AGAIN_MS) while a pass hits its caps. */
export const RETENTION_EVERY_MS = 30_000;
const PASS_AGAIN_MS = 1_000;

export interface RetentionSettings {
  /** Settled root trees older than this are deleted; undefined = never. */
  retentionMs?: number;
  /** Log lines older than this are deleted; undefined = never (beyond --retention's). */
  logRetentionMs?: number;
}

export interface PassResult {
  trees: number;
  /** Rows deleted by table. */
  rows: Record<string, number>;
  /** A cap was reached: more is due. */
  more: boolean;
}

const REF_IN_TEXT = /"\$ref":"([0-9a-f]{64})"/g;
const SETTLED = sql.join(
  SETTLED_STATUSES.map((s) => sql`${s}`),
  sql`, `,
);

/** Where the object sweep continues (per replica, in memory; it wraps around). */
export interface SweepCursor {
  createdAt: number;
  ref: string;
}

/** One bounded pass. Pure database work; the timer is startRetention's. */
export async function retentionPass(
  db: Db,
  now: number,
  settings: RetentionSettings,
  cursor: { sweep?: SweepCursor },
  limits: RetentionLimits = RETENTION_LIMITS,
): Promise<PassResult> {
  const rows: Record<string, number> = {};
  const count = (table: string, n: number) => {
    rows[table] = (rows[table] ?? 0) + n;
  };
  let trees = 0;
  let more = false;
  if (settings.retentionMs !== undefined) {
    const cutoff = now - settings.retentionMs;
    const refs = new Set<string>();
    for (;;) {
      const want = Math.min(limits.treesPerBatch, limits.treesPerPass - trees);
      if (want <= 0) {
        more = true;
        break;
      }
      const batch = await pruneTreeBatch(db, cutoff, want);
      trees += batch.trees;
      for (const [table, n] of Object.entries(batch.rows)) count(table, n);
      for (const ref of batch.refs) refs.add(ref);
      // No more candidates, or every one was locked elsewhere or not prunable: a later pass.
      if (batch.candidates < want || batch.trees === 0) break;
    }
    let budget = limits.objectsPerPass;
    const ours = [...refs].slice(0, budget);
    if (ours.length > 0) count("objects", await pruneObjects(db, cutoff, ours));
    budget -= ours.length;
    if (budget > 0) {
      const swept = await sweepObjects(db, cutoff, cursor, budget);
      count("objects", swept.deleted);
      if (swept.full) more = true;
    }
  }
  if (settings.logRetentionMs !== undefined) {
    const boundary = idBefore(now - settings.logRetentionMs);
    let deleted = 0;
    for (;;) {
      const want = Math.min(limits.logsPerBatch, limits.logsPerPass - deleted);
      if (want <= 0) {
        more = true;
        break;
      }
      const n = await pruneLogBatch(db, boundary, want);
      deleted += n;
      if (n < want) break;
    }
    count("logs", deleted);
  }
  return { trees, rows, more };
}

/**
 * One transaction: up to `limit` settled roots older than `cutoff` (oldest first), each tree
 * locked whole in id order without waiting (SKIP LOCKED, like the tree lock of the verbs but
 * never blocking them), and deleted only when every row of it is locked here, settled and
 * older than the cutoff — so a tree a verb is reviving, or one still settling, is left whole.
 */
async function pruneTreeBatch(
  db: Db,
  cutoff: number,
  limit: number,
): Promise<{ candidates: number; trees: number; rows: Record<string, number>; refs: string[] }> {
  return inTransaction(db, async (tx) => {
    const roots = rowsOf<{ id: string }>(
      await tx.execute(sql`
        SELECT id FROM instances
        WHERE parent_id IS NULL AND status IN (${SETTLED}) AND updated_at < ${cutoff}
        ORDER BY updated_at LIMIT ${limit}`),
    ).map((r) => String(r.id));
    if (roots.length === 0) return { candidates: 0, trees: 0, rows: {}, refs: [] };
    const locked = rowsOf<{ id: string; root_id: string; status: string; updated_at: unknown }>(
      await tx.execute(lockTrees(roots, { columns: ["id", "root_id", "status", "updated_at"], skipLocked: true })),
    );
    const sizes = rowsOf<{ root_id: string; n: unknown }>(
      await tx.execute(sql`
        SELECT root_id, count(*) AS n FROM instances WHERE root_id = ANY(${sqlTextArray(roots)}) GROUP BY root_id`),
    );
    const settled = new Set<string>(SETTLED_STATUSES);
    const byRoot = new Map<string, typeof locked>();
    for (const row of locked) byRoot.set(String(row.root_id), [...(byRoot.get(String(row.root_id)) ?? []), row]);
    const prunable = roots.filter((root) => {
      const rowsOfTree = byRoot.get(root) ?? [];
      const total = Number(sizes.find((s) => String(s.root_id) === root)?.n ?? -1);
      return (
        rowsOfTree.length === total &&
        rowsOfTree.some((r) => String(r.id) === root) &&
        rowsOfTree.every((r) => settled.has(String(r.status)) && Number(r.updated_at) < cutoff)
      );
    });
    if (prunable.length === 0) return { candidates: roots.length, trees: 0, rows: {}, refs: [] };
    const ids = prunable.flatMap((root) => byRoot.get(root)!.map((r) => String(r.id)));
    const idArray = sqlTextArray(ids);
    const rootArray = sqlTextArray(prunable);
    const refs = new Set<string>();
    const texts = rowsOf<{ state: string; output: string | null }>(
      await tx.execute(sql`
        SELECT state, output FROM instances WHERE id = ANY(${idArray})
          AND (strpos(state, '"$ref"') > 0 OR strpos(coalesce(output, ''), '"$ref"') > 0)`),
    );
    for (const t of texts) for (const m of `${t.state} ${t.output ?? ""}`.matchAll(REF_IN_TEXT)) refs.add(m[1]!);
    const deleted = async (table: string, statement: ReturnType<typeof sql>) =>
      [table, rowsOf<{ n: unknown }>(await tx.execute(statement)).length] as const;
    const rows = Object.fromEntries([
      await deleted("logs", sql`DELETE FROM logs WHERE root_id = ANY(${rootArray}) RETURNING 1 AS n`),
      await deleted("signals", sql`DELETE FROM signals WHERE instance_id = ANY(${idArray}) RETURNING 1 AS n`),
      await deleted("task_visits", sql`DELETE FROM task_visits WHERE instance_id = ANY(${idArray}) RETURNING 1 AS n`),
      await deleted(
        "external_claims",
        sql`DELETE FROM external_claims WHERE instance_id = ANY(${idArray}) RETURNING 1 AS n`,
      ),
      await deleted(
        "external_waits",
        sql`DELETE FROM external_waits WHERE instance_id = ANY(${idArray}) RETURNING 1 AS n`,
      ),
      await deleted("instances", sql`DELETE FROM instances WHERE id = ANY(${idArray}) RETURNING 1 AS n`),
    ]);
    return { candidates: roots.length, trees: prunable.length, rows, refs: [...refs] };
  });
}

/**
 * Deletes those of `refs` that no instance references (the GIN index of migration 0007) and
 * that were last stored before `cutoff`. The created_at condition is re-checked on the locked
 * row, which a concurrent store of the same object updates (insertObjects): a write that is
 * about to reference an object keeps it.
 */
async function pruneObjects(db: Db, cutoff: number, refs: string[]): Promise<number> {
  if (refs.length === 0) return 0;
  const result = await db.execute(sql`
    DELETE FROM objects o
    WHERE o.ref = ANY(${sqlTextArray(refs)}) AND o.created_at < ${cutoff}
      AND NOT EXISTS (
        SELECT 1 FROM instances i
        WHERE (strpos(i.state, '"$ref"') > 0 OR strpos(coalesce(i.output, ''), '"$ref"') > 0)
          AND baton_object_refs(i.state, i.output) @> ARRAY[o.ref])
    RETURNING 1 AS n`);
  return rowsOf(result).length;
}

/**
 * The sweep: the next `limit` objects last stored before `cutoff`, from where the previous
 * pass stopped (wrapping around), through pruneObjects. It finds objects a pass did not get
 * to (a replica stopped between deleting a tree and its objects) and objects left by trees
 * deleted before retention was turned on.
 */
async function sweepObjects(
  db: Db,
  cutoff: number,
  cursor: { sweep?: SweepCursor },
  limit: number,
): Promise<{ deleted: number; full: boolean }> {
  const from = cursor.sweep ?? { createdAt: -1, ref: "" };
  const next = rowsOf<{ ref: string; created_at: unknown }>(
    await db.execute(sql`
      SELECT ref, created_at FROM objects
      WHERE created_at < ${cutoff} AND (created_at, ref) > (${from.createdAt}::bigint, ${from.ref})
      ORDER BY created_at, ref LIMIT ${limit}`),
  );
  const last = next.at(-1);
  cursor.sweep =
    last && next.length === limit ? { createdAt: Number(last.created_at), ref: String(last.ref) } : undefined;
  const deleted = await pruneObjects(
    db,
    cutoff,
    next.map((r) => String(r.ref)),
  );
  return { deleted, full: next.length === limit };
}

async function pruneLogBatch(db: Db, boundary: string, limit: number): Promise<number> {
  if (limit <= 0) return 0;
  const result = await db.execute(sql`
    DELETE FROM logs WHERE id IN (
      SELECT id FROM logs WHERE id < ${boundary} ORDER BY id LIMIT ${limit} FOR UPDATE SKIP LOCKED)
    RETURNING 1 AS n`);
  return rowsOf(result).length;
}

/** The smallest UUIDv7 (storage/ids.ts) of millisecond `ms`: log ids below it were made before it. */
export function idBefore(ms: number): string {
  const hex = Math.max(0, Math.floor(ms)).toString(16).padStart(12, "0");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-7000-8000-000000000000`;
}

/** Runs passes on a timer while `settings` enables any retention; returns stop(). */
export function startRetention(
  db: Db,
  clock: Clock,
  settings: RetentionSettings,
  log: Logger,
  onPass: (result: PassResult) => void = () => {},
  everyMs = RETENTION_EVERY_MS,
): () => Promise<void> {
  if (settings.retentionMs === undefined && settings.logRetentionMs === undefined) return async () => {};
  const cursor: { sweep?: SweepCursor } = {};
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  const run = () => {
    running = retentionPass(db, clock.now(), settings, cursor)
      .then(
        (result) => {
          onPass(result);
          if (result.trees > 0 || Object.values(result.rows).some((n) => n > 0))
            log.debug("retention pass", { trees: result.trees, ...result.rows });
          return result.more;
        },
        (error) => {
          log.warn("retention pass failed", { error: errorText(error) });
          return false;
        },
      )
      .then((more) => {
        running = undefined;
        if (!stopped) schedule(more ? PASS_AGAIN_MS : everyMs);
      });
  };
  const schedule = (ms: number) => {
    timer = setTimeout(run, ms);
    timer.unref();
  };
  schedule(Math.min(everyMs, 5_000));
  return async () => {
    stopped = true;
    if (timer) clearTimeout(timer);
    await running;
  };
}
