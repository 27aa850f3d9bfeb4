import type { Clock } from "../../clock.js";
import { type Db, queryRows } from "../../storage/db.js";
import type { EngineForRequests } from "../carry.js";
import { leasedRow } from "../leases.js";
import { type AdvancedWrite, dueNow, keptLeaseRow, writeAdvancedResolves } from "./resolve-advanced-write.js";
import { type ParkedRow, parkedRowOf, type ResolveWrite } from "./resolve.js";

// The one-version resolve (docs/engine.md "Resolving an external task"): the advance that
// consumes the outcome is computed in memory first (docs/engine.md "One advance in memory"),
// and ONE statement writes the row where that advance leaves it — fenced on the claim as the
// plain resolve statement is (resolve.ts) AND on the row being exactly the one the advance was
// computed from — with the wait row's removal and every log line: external.resolved, then the
// advance's own. Whatever cannot go this way returns to the caller, which takes the plain
// resolve statement and the carried advance (outcomes.ts), and so gives today's answers.

/** The parked rows of `ids` by primary key, for claims whose row this process did not keep. */
export async function readParked(db: Db, ids: readonly string[]): Promise<Map<string, ParkedRow>> {
  if (ids.length === 0) return new Map();
  const rows = await queryRows<Record<string, unknown>>(
    db,
    "SELECT id, state, retry_count, status, parent_id, parent_task_epoch, trace_parent FROM instances WHERE id = ANY($1::text[])",
    [ids],
  );
  return new Map(rows.map((r) => [String(r.id), parkedRowOf(r)]));
}

/**
 * Resolves each of `writes` (at most one per instance) in one row version where it can: the
 * instance ids written. Every other write is left to the caller. `carry`: a single resolve whose
 * advance leaves the instance due now hands it to this process's engine under the lease the
 * statement keeps (Carried advances); otherwise such a row is left due and the pump is woken.
 */
export async function resolveInOneVersion(
  db: Db,
  clock: Clock,
  writes: readonly ResolveWrite[],
  actor: string | null,
  engine: Pick<EngineForRequests, "advanceInMemory" | "carry" | "wake">,
  carry: boolean,
): Promise<Set<string>> {
  const read = await readParked(
    db,
    writes.filter((w) => w.facts.parked === undefined).map((w) => w.facts.instanceId),
  );
  const computed = (
    await Promise.all(writes.map((w) => computeAdvance(engine, w, w.facts.parked ?? read.get(w.facts.instanceId))))
  ).filter((a): a is AdvancedWrite => a !== undefined);
  if (computed.length === 0) return new Set();
  let written: Map<string, { leaseEpoch: number; kept: boolean }>;
  const [first] = computed;
  if (carry && computed.length === 1 && dueNow(first, clock.now())) {
    written = await engine.carry(first.write.facts.instanceId, async (carrier) => {
      const landed = await writeAdvancedResolves(db, clock, computed, actor, carrier);
      const row = landed.get(first.write.facts.instanceId);
      return { value: landed, leased: row?.kept ? keptLeaseRow(first, row.leaseEpoch) : undefined };
    });
  } else {
    written = await writeAdvancedResolves(db, clock, computed, actor, null);
    if (computed.some((a) => written.has(a.write.facts.instanceId) && dueNow(a, clock.now()))) engine.wake();
  }
  for (const a of computed) if (written.has(a.write.facts.instanceId)) a.computed.report(true);
  return new Set(written.keys());
}

/**
 * The advance a write's outcome leads to, computed in memory; undefined where it cannot be
 * written in one version: the row is not running (a paused row only records the outcome), its
 * state cannot take the outcome as the plain statement splices it, the advance needs I/O, or
 * its result needs more than this statement writes (children spawned, a new park, a consumed
 * signal, a parent to wake).
 */
async function computeAdvance(
  engine: Pick<EngineForRequests, "advanceInMemory">,
  write: ResolveWrite,
  parked: ParkedRow | undefined,
): Promise<AdvancedWrite | undefined> {
  if (parked === undefined || parked.status !== "running") return undefined;
  const text = parked.stateText;
  if (!text.startsWith('{"') || text.startsWith('{"_outcome":')) return undefined;
  const { facts } = write;
  const row = leasedRow({
    id: facts.instanceId,
    rootId: facts.rootId,
    process: facts.process,
    version: facts.version,
    task: facts.task,
    // Exactly the text the plain statement stores (resolve.ts), so the advance reads what the pump would.
    stateText: `{"_outcome":${write.outcome},${text.slice(1)}`,
    retryCount: parked.retryCount,
    taskEpoch: facts.taskEpoch,
    leaseEpoch: 0,
    parentId: parked.parentId,
    parentTaskEpoch: parked.parentTaskEpoch,
    traceParent: parked.traceParent,
  });
  // An error computing it (a definition that cannot be read now, a fault in the advance) is the
  // pump's to meet and report, as for any advance: the plain path records the outcome and leaves
  // the row to it. The resolve itself must not fail on what only the next advance needs.
  const computed = await engine.advanceInMemory(row).catch(() => undefined);
  if (computed === undefined) return undefined;
  const { result } = computed;
  if (
    (result.spawns?.length ?? 0) > 0 ||
    typeof result.externalWait === "object" ||
    result.consumedSignal !== undefined ||
    (result.status !== "running" && parked.parentId !== null)
  )
    return undefined;
  return { write, parked, computed };
}
