import type { Json } from "@baton/expr";
import { sql } from "drizzle-orm";
import { Refusal } from "../../refusal.js";
import type { EngineForRequests } from "../carry.js";
import type { Clock } from "../../clock.js";
import { type Db, inTransaction, rowsOf } from "../../storage/db.js";
import { isSettled } from "../statuses.js";
import { claimFacts } from "./claim-facts.js";
import { claimRows, fateOf, tokenHash } from "./claims.js";
import { resolveInOneVersion } from "./resolve-advanced.js";
import { outcomeText, parkedRowOf, type ResolveWrite, writeResolve, writeResolves } from "./resolve.js";
import {
  checkOutcome,
  deliver,
  findTask,
  type Outcome,
  outcomeData,
  requireTask,
  resolvedMessage,
} from "./delivery.js";

// The answer half of external tasks (docs/engine.md#external-tasks-and-delay; claims.ts is the
// claim half): resolve by claim token (signal.ts answers by instance and task). Either records the outcome
// in the state (`_outcome`, read by advance/tasks/wait.ts) and makes the instance due, so the
// next advance routes it exactly like a fetch result or failure.

/**
 * Resolves the claimed task of `token` with a validated outcome. 404 unknown token; 409 when the
 * instance is settled/cancelled, the visit is over (a late answer) or the claim is not live.
 *
 * The fast paths are one fenced statement each. First the one-version resolve
 * (resolve-advanced.ts): the advance the outcome leads to, computed in memory, written with the
 * resolve. Else the plain resolve statement (resolve.ts), which also hands the instance to this
 * process's engine when it has a slot (`engine.carry`). What the claim stands for comes from
 * the claim call when this process made it (claimFacts), else from one read. Whenever neither
 * goes through — a refusal to explain, an outcome to refuse, facts gone stale —
 * resolveLocked decides, so every refusal keeps one wording and one order of checks.
 */
export async function resolveExternalTask(
  db: Db,
  clock: Clock,
  token: string,
  outcome: Outcome,
  actor: string | null,
  engine: EngineForRequests = NO_ENGINE,
): Promise<void> {
  const [write] = await fastWrites(db, clock, [{ token, outcome }]);
  if (write !== undefined) {
    if ((await resolveInOneVersion(db, clock, [write], actor, engine, true)).size > 0) return;
    const resolved = await engine.carry(write.facts.instanceId, async (carrier) => {
      const written = await writeResolve(db, clock, write, actor, carrier);
      return { value: written !== null, leased: written?.carried ? written.row : undefined };
    });
    if (resolved) return;
  }
  await resolveLocked(db, clock, token, outcome, actor);
  engine.wake();
}

/** One answer of resolve-batch: resolved, or the refusal the single resolve would have answered. */
export type BatchOutcome = { token: string; resolved: true } | { token: string; resolved: false; refusal: Refusal };

/**
 * Resolve-batch (docs/api.md "Extensions"): every item as resolveExternalTask would, each
 * answered on its own, in the order given. The items the fast paths can take land in ONE
 * statement each path: first the one-version resolve of every item whose advance it can write
 * (resolve-advanced.ts), then the plain resolve statement (resolve.ts) for the rest, whose
 * instances are left due for the pump, which this wakes. Every other item — a refusal to
 * explain, an outcome to refuse, a second claim on an instance already in the statement — goes
 * through resolveLocked afterwards, alone, so it is fenced and worded exactly as a single resolve.
 */
export async function resolveExternalTasks(
  db: Db,
  clock: Clock,
  items: readonly { token: string; outcome: Outcome }[],
  actor: string | null,
  engine: EngineForRequests = NO_ENGINE,
): Promise<BatchOutcome[]> {
  const writes = await fastWrites(db, clock, items);
  const seen = new Set<string>();
  const batch = writes.filter((w): w is ResolveWrite => {
    if (w === undefined || seen.has(w.facts.instanceId)) return false;
    seen.add(w.facts.instanceId);
    return true;
  });
  const advanced =
    batch.length === 0 ? new Set<string>() : await resolveInOneVersion(db, clock, batch, actor, engine, false);
  const plain = batch.filter((w) => !advanced.has(w.facts.instanceId));
  const written = plain.length === 0 ? new Map() : await writeResolves(db, clock, plain, actor, null);
  const out: BatchOutcome[] = [];
  let any = written.size > 0;
  for (const [i, { token, outcome }] of items.entries()) {
    const w = writes[i];
    // A batch statement took this very write (not just another claim on its instance).
    if (w !== undefined && batch.includes(w) && (advanced.has(w.facts.instanceId) || written.has(w.facts.instanceId))) {
      out.push({ token, resolved: true });
      continue;
    }
    try {
      await resolveLocked(db, clock, token, outcome, actor);
      any = true;
      out.push({ token, resolved: true });
    } catch (error) {
      if (!(error instanceof Refusal)) throw error;
      out.push({ token, resolved: false, refusal: error });
    }
  }
  if (any) engine.wake();
  return out;
}

/**
 * The fast path's write for each item, or undefined where it cannot be made (the facts of the
 * claim cannot be had, or the outcome does not check): those go to resolveLocked. Claims this
 * process handed out are known (claimFacts); the rest are read in one statement.
 */
async function fastWrites(
  db: Db,
  clock: Clock,
  items: readonly { token: string; outcome: Outcome }[],
): Promise<(ResolveWrite | undefined)[]> {
  const cache = claimFacts(db);
  const hashes = items.map((item) => tokenHash(item.token));
  const known = hashes.map((hash) => {
    const facts = cache.get(hash);
    cache.delete(hash);
    return facts;
  });
  const missing = hashes.filter((_, i) => known[i] === undefined);
  const rows = missing.length === 0 ? new Map() : await claimRows(db, missing, true);
  const now = clock.now();
  const out: (ResolveWrite | undefined)[] = [];
  for (const [i, hash] of hashes.entries()) {
    const row = rows.get(hash);
    const facts =
      known[i] ??
      (row !== undefined &&
      row.status !== null &&
      !isSettled(String(row.status)) &&
      fateOf(row, undefined, now) === "live"
        ? {
            instanceId: String(row.instance_id),
            rootId: String(row.root_id),
            process: String(row.process),
            version: Number(row.version),
            task: String(row.w_task),
            taskEpoch: Number(row.task_epoch),
            claimEpoch: Number(row.claim_epoch),
            parked: parkedRowOf(row),
          }
        : undefined);
    const task = facts === undefined ? undefined : await findTask(db, db, facts.process, facts.version, facts.task);
    let checked: Outcome | undefined;
    try {
      checked = task === undefined ? undefined : checkOutcome(task, items[i].outcome);
    } catch {
      checked = undefined;
    }
    out.push(
      facts === undefined || checked === undefined
        ? undefined
        : {
            hash,
            facts,
            outcome: outcomeText(facts.taskEpoch, checked as { [key: string]: Json }),
            message: resolvedMessage(checked, facts.task, "resolve"),
            data: { via: "resolve", ...outcomeData(checked) },
          },
    );
  }
  return out;
}

/** No engine in this process (direct calls, tests): the row is left due for whichever pump or /tick comes. */
const NO_ENGINE: EngineForRequests = {
  carry: async (_id, write) => (await write(null)).value,
  wake: () => {},
  advanceInMemory: async () => undefined,
};

/** Resolve as one locking transaction: the refusals in their order, and the fallback of the fast path. */
async function resolveLocked(
  db: Db,
  clock: Clock,
  token: string,
  outcome: Outcome,
  actor: string | null,
): Promise<void> {
  const now = clock.now();
  const hash = tokenHash(token);
  await inTransaction(db, async (tx) => {
    // Lock the instance first, then read the claim: a worker's write or an operator verb is either fully before or after.
    const locked = rowsOf(
      await tx.execute(
        sql`SELECT i.id FROM external_claims c JOIN instances i ON i.id = c.instance_id WHERE c.token_hash = ${hash} FOR UPDATE OF i`,
      ),
    );
    const row = locked.length === 0 ? undefined : (await claimRows(tx, [hash])).get(hash);
    if (row === undefined || row.status === null || row.status === undefined)
      throw new Refusal("not_found", "unknown claim token");
    const status = String(row.status);
    if (isSettled(status) || status === "cancelling") {
      throw new Refusal(
        "conflict",
        `instance ${String(row.instance_id)} is ${status}; it no longer waits for an outcome`,
      );
    }
    const fate = fateOf(row, undefined, now);
    if (fate === "cancelled") {
      throw new Refusal(
        "conflict",
        `a late answer: the visit of task "${String(row.w_task ?? row.i_task)}" this claim was for is over (the task moved on)`,
      );
    }
    if (fate === "lost")
      throw new Refusal("conflict", "the claim is no longer live: it lapsed or another worker claimed the task since");
    const taskId = String(row.w_task);
    const task = await requireTask(db, tx, String(row.process), Number(row.version), taskId);
    const checked = checkOutcome(task, outcome);
    await deliver(
      tx,
      clock,
      { id: String(row.instance_id), rootId: String(row.root_id), task: taskId, taskEpoch: Number(row.task_epoch) },
      checked,
      actor,
      "resolve",
    );
  });
}
