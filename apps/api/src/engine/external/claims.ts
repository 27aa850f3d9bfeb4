import { createHash, randomBytes } from "node:crypto";
import type { ExternalTask, JsonSchemaValue } from "@baton/actions";
import { parseJson } from "@baton/expr";
import { type Definition, inlineRefs, type Schema, type Task } from "@baton/model";
import { and, eq, sql } from "drizzle-orm";
import { storedDefinition } from "../../definitions/store.js";
import { iso } from "../../format.js";
import { Refusal } from "../../refusal.js";
import type { Clock } from "../../clock.js";
import { type Db, executePrepared, inTransaction, rowsOf } from "../../storage/db.js";
import { externalWaits } from "../../storage/schema/index.js";
import { sqlTextArray } from "../../storage/sql-arrays.js";
import { isSettled } from "../statuses.js";
import { announceClaimable } from "./claim-wait.js";
import { claimFacts } from "./claim-facts.js";
import { parkedRowOf } from "./resolve.js";
import { instanceTraceparent, tracing } from "../../tracing/index.js";

// External tasks from the worker's side (docs/engine.md#external-tasks-and-delay), the claim
// half: claim, renew, release. A claim is one row of external_waits (the parked visit) plus a
// token in external_claims bound to (instance, task_epoch, claim_epoch, worker). The answer
// half (resolve, signal) is outcomes.ts; both judge a token by fateOf and claimRows here.

export interface ClaimRequest {
  workerId: string;
  limit: number;
  /** How long the claim holds unless renewed: a worker's claim, not the pump's instance lease. */
  claimMs: number;
  process?: string;
  task?: string;
  version?: number;
  /** A scoped worker's processes (docs/auth.md "Scopes"): it claims only their tasks; absent or null: every process. */
  processes?: readonly string[] | null;
}

/** One claimed task as the API sends it (the registry's ExternalTask). */
export type ExternalTaskItem = ExternalTask;

/** When a worker should renew a claim that holds for `claimMs` (the API calls it lease_ms). */
export const renewBeforeMs = (claimMs: number) => Math.floor(claimMs / 3);

export function newClaimToken(): string {
  return `ext_${randomBytes(24).toString("base64url")}`;
}

export function tokenHash(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

/** Leases up to `limit` parked, unclaimed tasks FIFO by park time; two callers never get the same one. */
export async function claimExternalTasks(db: Db, clock: Clock, request: ClaimRequest): Promise<ExternalTaskItem[]> {
  const now = clock.now();
  const expires = now + request.claimMs;
  const filters = [sql`TRUE`];
  if (request.process !== undefined) filters.push(sql`i.process = ${request.process}`);
  if (request.task !== undefined) filters.push(sql`w.task = ${request.task}`);
  if (request.version !== undefined) filters.push(sql`i.version = ${request.version}`);
  if (request.processes) filters.push(sql`i.process = ANY(${sqlTextArray(request.processes)})`);
  // The instance's conditions are a scalar subquery by primary key, never a join: a join lets the
  // planner start from an instances index when its statistics predate a burst of armings (it
  // then read and sorted every waiting row per claim, 66 ms for 5,000 in `pnpm bench`), while
  // this shape always walks external_waits_queue_idx in FIFO order and stops at `limit`.
  // Tokens for every row the claim may take, made before the statement so that the claim, the
  // detail view's epoch mirror and the token rows land in ONE autocommit statement; the rows it
  // takes get them by their FIFO rank.
  const minted = Array.from({ length: request.limit }, () => newClaimToken());
  const hashes = minted.map(tokenHash);
  // Prepared (one statement per filter combination): an unprepared statement with parameters
  // costs the driver two round trips (describe, then execute) and PostgreSQL a plan per call.
  const claimed = rowsOf<Record<string, unknown>>(
    await executePrepared(
      db,
      sql`
      WITH picked AS (
        SELECT w.instance_id FROM external_waits w
        WHERE (w.claim_expires_at IS NULL OR w.claim_expires_at <= ${now})
          AND (SELECT i.status = 'running' AND i.phase = 'external' AND i.task_epoch = w.task_epoch AND i.task = w.task
                 AND ${sql.join(filters, sql` AND `)}
               FROM instances i WHERE i.id = w.instance_id)
        ORDER BY w.waiting_since, w.instance_id
        LIMIT ${request.limit}
        FOR UPDATE OF w SKIP LOCKED
      ),
      taken AS (
        UPDATE external_waits AS w
        SET claim_epoch = w.claim_epoch + 1, claimed_by = ${request.workerId}, claim_expires_at = ${expires}
        FROM picked, instances AS i
        WHERE w.instance_id = picked.instance_id AND i.id = w.instance_id
        RETURNING w.instance_id, w.task, w.task_epoch, w.claim_epoch, w.input, w.waiting_since, w.deadline, i.process, i.version, i.root_id,
                  i.state, i.retry_count, i.status, i.parent_id, i.parent_task_epoch, i.trace_parent,
                  COALESCE(i.key, (SELECT r.key FROM instances r WHERE r.id = i.root_id)) AS tree_key
      ),
      ranked AS (SELECT t.*, row_number() OVER (ORDER BY t.waiting_since, t.instance_id)::int AS rank FROM taken t),
      -- The detail view's external_claim_epoch mirrors the claim counter of the current visit.
      mirrored AS (UPDATE instances AS i SET external_claim_epoch = r.claim_epoch FROM ranked r WHERE i.id = r.instance_id),
      tokens AS (
        INSERT INTO external_claims (token_hash, instance_id, task_epoch, claim_epoch, worker_id, created_at)
        SELECT (${sqlTextArray(hashes)}::text[])[r.rank], r.instance_id, r.task_epoch, r.claim_epoch, ${request.workerId}, ${now}::bigint
        FROM ranked r
      )
      SELECT * FROM ranked ORDER BY rank`,
    ),
  );
  const facts = claimFacts(db);
  const traced = tracing() !== undefined;
  const items: ExternalTaskItem[] = [];
  // In rank order: FIFO by park time.
  for (const row of claimed) {
    const rank = Number(row.rank);
    const process = String(row.process);
    const version = Number(row.version);
    const def = await storedDefinition(db, process, version);
    const task = def?.tasks.find((t) => t.id === row.task);
    const instanceId = String(row.instance_id);
    const rootId = String(row.root_id);
    facts.set(hashes[rank - 1], {
      instanceId,
      rootId,
      process,
      version,
      task: String(row.task),
      taskEpoch: Number(row.task_epoch),
      claimEpoch: Number(row.claim_epoch),
      parked: parkedRowOf(row),
    });
    items.push({
      token: minted[rank - 1],
      process,
      version,
      task: String(row.task),
      external_input: parseJson(String(row.input)),
      ...(def !== undefined && task !== undefined ? declaredOf(def, task) : { result_schema: {}, raises: {} }),
      waiting_since: iso(Number(row.waiting_since)),
      deadline: row.deadline === null || row.deadline === undefined ? null : iso(Number(row.deadline)),
      claimed_by: request.workerId,
      claim_expires: iso(expires),
      instance_id: instanceId,
      root_id: rootId,
      key: row.tree_key === null || row.tree_key === undefined ? null : String(row.tree_key),
      task_epoch: Number(row.task_epoch),
      attempt: Number(row.retry_count) + 1,
      // The instance's trace context (docs/tracing.md "Workers"): only while this server traces.
      ...(traced ? { traceparent: instanceTraceparent(row.trace_parent as string | null, rootId, instanceId) } : {}),
    });
  }
  return items;
}

export interface RenewResult {
  renewed: string[];
  lost: string[];
  cancelled: string[];
}

type ClaimFate = "live" | "lost" | "cancelled";

/**
 * Where one claim stands: its instance cancelled, the visit over, or the visit re-armed since
 * the claim (a retry after a timeout) → cancelled; released, lapsed, claimed again, or held by
 * another worker → lost. Only a live claim's token acts; claim epochs never repeat for an
 * instance (pump/wait-rows.ts), so no older token can match a newer arming's claim.
 */
export function fateOf(row: Record<string, unknown> | undefined, workerId: string | undefined, now: number): ClaimFate {
  if (row === undefined || row.status === null || row.status === undefined) return "lost";
  const status = String(row.status);
  if (status === "cancelled" || status === "cancelling" || isSettled(status)) return "cancelled";
  const epoch = Number(row.task_epoch);
  if (
    Number(row.i_task_epoch) !== epoch ||
    row.w_task_epoch === null ||
    row.w_task_epoch === undefined ||
    Number(row.w_task_epoch) !== epoch
  )
    return "cancelled";
  if (row.phase !== "external") return "cancelled";
  // A retry re-armed the same visit after this claim was issued: that arming is no longer wanted.
  if (Number(row.created_at) < Number(row.waiting_since)) return "cancelled";
  if (Number(row.w_claim_epoch) !== Number(row.claim_epoch)) return "lost";
  if (row.claim_expires_at === null || row.claim_expires_at === undefined || Number(row.claim_expires_at) <= now)
    return "lost";
  if (workerId !== undefined && String(row.worker_id) !== workerId) return "lost";
  return "live";
}

/** The claims of `hashes` with their wait and instance rows; `parked` adds what resolve-advanced.ts reads (parkedRowOf). */
export async function claimRows(
  tx: Db,
  hashes: string[],
  parked = false,
): Promise<Map<string, Record<string, unknown>>> {
  const result = await tx.execute(sql`
    SELECT c.token_hash, c.instance_id, c.task_epoch, c.claim_epoch, c.worker_id, c.created_at,
           w.task_epoch AS w_task_epoch, w.claim_epoch AS w_claim_epoch, w.claim_expires_at, w.task AS w_task, w.waiting_since,
           i.status, i.task_epoch AS i_task_epoch, i.phase, i.root_id, i.process, i.version, i.task AS i_task
           ${parked ? sql`, i.state, i.retry_count, i.parent_id, i.parent_task_epoch, i.trace_parent` : sql``}
    FROM external_claims c
    LEFT JOIN external_waits w ON w.instance_id = c.instance_id
    LEFT JOIN instances i ON i.id = c.instance_id
    WHERE c.token_hash = ANY(${sqlTextArray(hashes)})`);
  return new Map(rowsOf<Record<string, unknown>>(result).map((r) => [String(r.token_hash), r]));
}

/** Extends the live claims among `tokens` and sorts every token by fate. */
export async function renewExternalTasks(
  db: Db,
  clock: Clock,
  workerId: string,
  tokens: readonly string[],
  claimMs: number,
): Promise<RenewResult> {
  const out: RenewResult = { renewed: [], lost: [], cancelled: [] };
  if (tokens.length === 0) return out;
  const now = clock.now();
  const hashes = tokens.map(tokenHash);
  return inTransaction(db, async (tx) => {
    const rows = await claimRows(tx, hashes);
    const live: Array<{ token: string; instanceId: string; claimEpoch: number }> = [];
    tokens.forEach((token, i) => {
      const row = rows.get(hashes[i]);
      const fate = fateOf(row, workerId, now);
      if (fate === "live")
        live.push({ token, instanceId: String(row!.instance_id), claimEpoch: Number(row!.claim_epoch) });
      else out[fate === "lost" ? "lost" : "cancelled"].push(token);
    });
    if (live.length > 0) {
      // Fenced by claim_epoch and expiry: a claim that lapsed and was re-taken meanwhile stays lost.
      const updated = await tx.execute(sql`
        UPDATE external_waits AS w SET claim_expires_at = ${now + claimMs}
        FROM (SELECT unnest(${sqlTextArray(live.map((l) => l.instanceId))}) AS id, unnest(${`{${live.map((l) => l.claimEpoch).join(",")}}`}::int[]) AS epoch) AS h
        WHERE w.instance_id = h.id AND w.claim_epoch = h.epoch AND w.claim_expires_at > ${now}
        RETURNING w.instance_id`);
      const kept = new Set(rowsOf<{ instance_id: string }>(updated).map((r) => r.instance_id));
      for (const l of live) (kept.has(l.instanceId) ? out.renewed : out.lost).push(l.token);
    }
    return out;
  });
}

/**
 * Ends a live claim at once (the task is claimable again): true. A token whose task is no
 * longer wanted (renew answers `cancelled`: "stop, then release") is accepted and changes
 * nothing: false. A token never issued, lapsed, released, or lost to another arming or
 * worker is a conflict: its release must not hand back a claim someone else holds.
 */
export async function releaseExternalTask(db: Db, clock: Clock, token: string): Promise<boolean> {
  const now = clock.now();
  claimFacts(db).delete(tokenHash(token));
  const released = await inTransaction(db, async (tx) => {
    const row = (await claimRows(tx, [tokenHash(token)])).get(tokenHash(token));
    if (row === undefined) throw new Refusal("conflict", "the claim is not held: no claim has this token");
    const fate = fateOf(row, undefined, now);
    if (fate === "cancelled") return false;
    if (fate === "lost") {
      throw new Refusal(
        "conflict",
        "the claim is not held: it lapsed, was released, or the task was claimed again since",
      );
    }
    await tx
      .update(externalWaits)
      .set({ claimedBy: null, claimExpiresAt: null })
      .where(
        and(
          eq(externalWaits.instanceId, String(row.instance_id)),
          eq(externalWaits.claimEpoch, Number(row.claim_epoch)),
        ),
      );
    return true;
  });
  if (released) announceClaimable(db);
  return released;
}

/**
 * A task's result_schema and raises with `$ref`s inlined, made once per stored task: stored
 * definitions never change, and every claimed item of the task shares the same (never changed) objects.
 */
const declared = new WeakMap<Task, Pick<ExternalTaskItem, "result_schema" | "raises">>();

function declaredOf(def: Definition, task: Task): Pick<ExternalTaskItem, "result_schema" | "raises"> {
  let out = declared.get(task);
  if (out === undefined) {
    out = { result_schema: resultSchema(def, task), raises: raisesOf(def, task) };
    declared.set(task, out);
  }
  return out;
}

function resultSchema(def: Definition, task: Task): JsonSchemaValue {
  const schema = task.action?.type === "external" ? task.action.result_schema : undefined;
  return schema === undefined ? {} : (inlineRefs(schema, def.$defs) as unknown as JsonSchemaValue);
}

function raisesOf(def: Definition, task: Task): { [code: string]: JsonSchemaValue | null } {
  const out: { [code: string]: JsonSchemaValue | null } = {};
  for (const [code, schema] of Object.entries(task.raises ?? {})) {
    out[code] = schema === null ? null : (inlineRefs(schema as Schema, def.$defs) as unknown as JsonSchemaValue);
  }
  return out;
}
