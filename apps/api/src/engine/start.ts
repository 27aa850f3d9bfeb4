import { type Json, stringifyJson } from "@baton/expr";
import { validateInput } from "@baton/model";
import { requireDefinition, type StoredDefinition } from "../definitions/store.js";
import { invalid } from "../refusal.js";
import type { Services } from "../services.js";
import { type Db, inTransaction, queryRows } from "../storage/db.js";
import { newId } from "../storage/ids.js";
import { insertObjects, planExternalize } from "../storage/objects.js";
import { perDbCache } from "../storage/per-db-cache.js";
import { instances } from "../storage/schema/index.js";
import { appendLog, type LogEntry, logRow } from "./audit-log.js";
import type { ClaimedRow } from "./pump/claim.js";
import { LEASE_MS } from "./statuses.js";

// ---- start ----------------------------------------------------------------------------

/** What differs between fresh instances; everything else a fresh row holds is the same for all. */
export interface FreshInstance {
  id: string;
  /** Omitted for a root: its own id. */
  rootId?: string;
  parentId?: string | null;
  /** For a child: the parent's task that spawned it, its key or index, and that visit's task_epoch. */
  spawnTask?: string | null;
  spawnKey?: string | null;
  parentTaskEpoch?: number;
  process: string;
  version: number;
  /** The first task of the definition. */
  task: string;
  /** The stored state text (freshState, externalised, stringifyJson). */
  state: string;
  /** A root's business key (docs/api.md "Business keys"); children have none. */
  key?: string | null;
  now: number;
}

export type InstanceInsert = typeof instances.$inferInsert;

/**
 * The one builder of a fresh instance row: roots (startInstance), children (the commit
 * statement, pump/commit.ts) and test seeding all use it, so a new column gets its starting
 * value in one place. A fresh row is running, due now, at task_epoch 1 with no lease taken.
 */
export function freshInstanceRow(fresh: FreshInstance): InstanceInsert {
  return {
    id: fresh.id,
    rootId: fresh.rootId ?? fresh.id,
    parentId: fresh.parentId ?? null,
    spawnTask: fresh.spawnTask ?? null,
    spawnKey: fresh.spawnKey ?? null,
    parentTaskEpoch: fresh.parentTaskEpoch ?? 0,
    process: fresh.process,
    version: fresh.version,
    status: "running",
    phase: null,
    task: fresh.task,
    state: fresh.state,
    taskEpoch: 1,
    leaseEpoch: 0,
    wakeAt: fresh.now,
    key: fresh.key ?? null,
    createdAt: fresh.now,
    updatedAt: fresh.now,
  };
}

/** The state an instance starts with: its input, no outputs, no children. */
export function freshState(input: Json): Json {
  return { input, outputs: {}, _children: {} };
}

// A start is ONE statement in the common case (docs/engine.md "Starting an instance"): the row
// and its instance.started line together, fenced on the definition it was validated against
// still being the latest when the caller named no version, and — when this process runs the
// first advance itself (engine.carry) — with the lease already taken. Inputs large enough to
// be stored as objects take the transaction below instead.
const START = `
WITH fence AS (
  SELECT 1 AS ok WHERE $20::boolean OR NOT EXISTS (SELECT 1 FROM definitions WHERE name = $7 AND version > $8::int)
),
ins AS (
  INSERT INTO instances (id, root_id, parent_id, spawn_task, spawn_key, parent_task_epoch, process, version, status, phase,
                         task, state, task_epoch, lease_epoch, wake_at, created_at, updated_at, lease_owner, lease_expires_at, key)
  SELECT $1, $2, $3, $4, $5, $6::int, $7, $8::int, $9, $10, $11, $12, $13::int, $14::int, $15::bigint, $16::bigint, $17::bigint,
         $18, $19::bigint, $28
  FROM fence
  RETURNING id, root_id
),
logged AS (
  INSERT INTO logs (id, instance_id, root_id, level, event, message, task, actor, data, created_at)
  SELECT $21, ins.id, ins.root_id, $22, $23, $24, $25, $26, $27, $16::bigint FROM ins
)
SELECT id FROM ins`;

/** Who may start instances of which definitions is decided before; this starts one. */
export async function startInstance(
  body: { process: string; version?: number; input?: Json; key?: string },
  actor: string | null,
  services: Services,
) {
  const pinned = body.version !== undefined && body.version !== 0;
  for (let attempt = 0; ; attempt++) {
    // A fence that failed means a newer version was registered since it was read: read it again.
    const stored = await startDefinition(services.db, body.process, pinned ? body.version : undefined, attempt > 0);
    const started = await startOnce(stored, pinned, body.input, body.key ?? null, actor, services);
    if (started !== undefined) return started;
  }
}

async function startOnce(
  stored: StoredDefinition,
  pinned: boolean,
  input: Json | undefined,
  key: string | null,
  actor: string | null,
  services: Services,
) {
  const def = stored.definition;
  const checked = validateInput(def, input);
  if (!checked.ok) {
    const lines = checked.problems.map((p) => `${p.path}: ${p.message}`).join("; ");
    throw invalid(
      `the input does not match the input_schema of process "${stored.name}" version ${stored.version}: ${lines}`,
      checked.problems,
    );
  }
  const first = def.tasks[0];
  if (!first) throw invalid(`process "${stored.name}" version ${stored.version} has no tasks to run`);

  const now = services.clock.now();
  const id = newId(now);
  const started: LogEntry = {
    instanceId: id,
    rootId: id,
    level: "info",
    event: "instance.started",
    message: `started ${stored.name} version ${stored.version} at task "${first.id}"`,
    task: first.id,
    actor,
    data: { process: stored.name, version: stored.version, ...(key === null ? {} : { key }) },
  };
  const answer = { id, process: stored.name, version: stored.version, status: "running" };
  const plan = planExternalize(freshState(checked.value), services.config.objectThresholdBytes);
  const state = stringifyJson(plan.value);
  if (plan.objects.length > 0) {
    // Rare (an input above --object-threshold): the objects and the row in one transaction.
    await inTransaction(services.db, async (tx) => {
      await insertObjects(tx, services.clock, plan.objects);
      await tx
        .insert(instances)
        .values(
          freshInstanceRow({ id, process: stored.name, version: stored.version, task: first.id, state, key, now }),
        );
      await appendLog(tx, services.clock, started);
    });
    services.engine.wake();
    return answer;
  }
  return services.engine.carry(id, async (carrier) => {
    const row = freshInstanceRow({
      id,
      process: stored.name,
      version: stored.version,
      task: first.id,
      state,
      key,
      now,
    });
    const leased = carrier === null ? row : { ...row, ...leasedTo(carrier, now) };
    const log = logRow(started, now);
    const inserted = await queryRows(services.db, START, [
      leased.id,
      leased.rootId,
      leased.parentId,
      leased.spawnTask,
      leased.spawnKey,
      leased.parentTaskEpoch,
      leased.process,
      leased.version,
      leased.status,
      leased.phase,
      leased.task,
      leased.state,
      leased.taskEpoch,
      leased.leaseEpoch,
      leased.wakeAt,
      leased.createdAt,
      leased.updatedAt,
      leased.leaseOwner ?? null,
      leased.leaseExpiresAt ?? null,
      pinned,
      log.id,
      log.level,
      log.event,
      log.message,
      log.task,
      log.actor,
      log.data,
      leased.key ?? null,
    ]);
    if (inserted.length === 0) return { value: undefined };
    const claimed: ClaimedRow | undefined =
      carrier === null
        ? undefined
        : {
            id,
            rootId: id,
            process: stored.name,
            version: stored.version,
            task: first.id,
            stateText: state,
            retryCount: 0,
            taskEpoch: 1,
            leaseEpoch: leased.leaseEpoch ?? 1,
            reclaimedFrom: null,
            parentId: null,
            parentTaskEpoch: 0,
          };
    return { value: answer, leased: claimed };
  });
}

/** The lease a carried start takes in its insert: as a claim would (pump/claim.ts), epoch 1. */
function leasedTo(carrier: string, now: number): Partial<InstanceInsert> {
  return { leaseOwner: carrier, leaseExpiresAt: now + LEASE_MS, wakeAt: now + LEASE_MS, leaseEpoch: 1 };
}

// Definitions are immutable; only "which version is the latest" changes, and the start
// statement's fence catches that. So a start reads a definition from the database only the
// first time this process starts its name (or version), and again after a fence failed.
const latestOf = perDbCache<StoredDefinition>();
const exactOf = perDbCache<StoredDefinition>();

async function startDefinition(db: Db, name: string, version: number | undefined, fresh: boolean) {
  const cache = version === undefined ? latestOf(db) : exactOf(db);
  const key = version === undefined ? name : `${version}:${name}`;
  const hit = fresh ? undefined : cache.get(key);
  if (hit !== undefined) return hit;
  const stored = await requireDefinition(db, name, version);
  cache.set(key, stored);
  return stored;
}
