import { createHash } from "node:crypto";
import { isLosslessNumber, type Json, stringifyJson } from "@baton/expr";
import { eq, sql } from "drizzle-orm";
import { validateInput } from "@baton/model";
import { requireDefinition, type StoredDefinition } from "../definitions/store.js";
import { refuseFaultyDefinition } from "../definitions/stored-fault.js";
import { conflict, invalid, Refusal } from "../refusal.js";
import type { Services } from "../services.js";
import { type Db, inTransaction, rowsOf } from "../storage/db.js";
import { newId } from "../storage/ids.js";
import { insertObjects, planExternalize } from "../storage/objects.js";
import { perDbLruCache } from "../storage/per-db-cache.js";
import { definitionCacheBound, definitionWeight } from "../definitions/cache-bound.js";
import { type InstanceInsert, instances } from "../storage/schema/index.js";
import { appendLog, type LogEntry, logRow } from "./audit-log.js";
import { firstAdvanceInMemory, insertStarted } from "./start-insert.js";
import type { InstanceStatus } from "./statuses.js";

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
    // A root's tree holds itself; a child's tree is counted on its root (docs/limits.md#trees).
    treeSize: (fresh.parentId ?? null) === null ? 1 : null,
    createdAt: fresh.now,
    updatedAt: fresh.now,
  };
}

/** The state an instance starts with: its input, no outputs, no children. */
export function freshState(input: Json): Json {
  return { input, outputs: {}, _children: {} };
}

export interface StartAnswer {
  id: string;
  process: string;
  version: number;
  status: InstanceStatus;
  /** An Idempotency-Key retry: the instance an earlier request started, nothing new started. */
  replayed: boolean;
}

export async function startInstance(
  body: { process: string; version?: number; input?: Json; key?: string },
  actor: string | null,
  services: Services,
  idempotencyKey?: string,
): Promise<StartAnswer> {
  const key =
    idempotencyKey === undefined
      ? undefined
      : { scope: actor ?? "", key: idempotencyKey, hash: requestHash(body as unknown as Json) };
  const pinned = body.version !== undefined && body.version !== 0;
  for (let attempt = 0; ; attempt++) {
    let started: StartAnswer | undefined;
    try {
      // A fence that failed means a newer version was registered since it was read: read it again.
      const stored = await startDefinition(services.db, body.process, pinned ? body.version : undefined, attempt > 0);
      started = await startOnce(stored, pinned, body, actor, services, key);
    } catch (error) {
      // A retry answers the start its key made even when the same request would now be refused
      // (a newer version's input_schema): the key is read only then, not before every start.
      if (key !== undefined && error instanceof Refusal) {
        const earlier = await earlierStart(services.db, key, services.clock.now());
        if (earlier !== undefined) return earlier;
      }
      throw error;
    }
    if (started !== undefined) return started;
  }
}

async function startOnce(
  stored: StoredDefinition,
  pinned: boolean,
  body: { input?: Json; key?: string },
  actor: string | null,
  services: Services,
  idempotency: StartKey | undefined,
): Promise<StartAnswer | undefined> {
  const def = stored.definition;
  refuseFaultyDefinition(def, stored.version);
  const checked = validateInput(def, body.input);
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
  const key = body.key ?? null;
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
  const answer: StartAnswer = { id, process: stored.name, version: stored.version, status: "running", replayed: false };
  const plan = planExternalize(freshState(checked.value), services.config.objectThresholdBytes);
  const fresh = {
    id,
    process: stored.name,
    version: stored.version,
    task: first.id,
    state: stringifyJson(plan.value),
    key,
    now,
  };
  if (plan.objects.length > 0) {
    const landed = await inTransaction(services.db, async (tx) => {
      if (idempotency !== undefined && !(await claimStartKey(tx, idempotency, id, now))) return false;
      await insertObjects(tx, services.clock, plan.objects);
      await tx.insert(instances).values(freshInstanceRow(fresh));
      await appendLog(tx, services.clock, started);
      return true;
    });
    if (!landed) return keyTaken(services, idempotency);
    services.engine.wake();
    return answer;
  }
  const claim =
    idempotency === undefined ? undefined : { ...idempotency, expiredAtOrBefore: now - START_KEY_RETENTION_MS };
  const row = freshInstanceRow(fresh);
  const startedLine = logRow(started, now);
  // Only where the engine runs advances (the pump is on: with --poll 0 a start stays due), and
  // not for a first task whose action (fetch, child, external) stops an in-memory run at once.
  const inMemory = services.config.pollMs > 0 && (first.action === undefined || first.action.type === "delay");
  const advanced = inMemory ? await firstAdvanceInMemory(services.engine, row, () => services.clock.now()) : undefined;
  if (advanced !== undefined) {
    const landed = await insertStarted(services.db, advanced.row, [startedLine, ...advanced.logs], pinned, null, claim);
    advanced.report(landed.started);
    if (landed.started) return { ...answer, status: advanced.row.status as InstanceStatus };
    return landed.why === "fenced" ? undefined : keyTaken(services, idempotency);
  }
  const outcome = await services.engine.carry(id, async (carrier) => {
    const landed = await insertStarted(services.db, row, [startedLine], pinned, carrier, claim);
    return { value: landed, leased: landed.started ? landed.leased : undefined };
  });
  if (outcome.started) return answer;
  return outcome.why === "fenced" ? undefined : keyTaken(services, idempotency);
}

/** A start with the same key committed first (a concurrent retry): the answer is what it started. */
async function keyTaken(services: Services, idempotency: StartKey | undefined): Promise<StartAnswer> {
  const earlier =
    idempotency === undefined ? undefined : await earlierStart(services.db, idempotency, services.clock.now());
  if (earlier === undefined) throw new Error("an Idempotency-Key was taken but its start is not visible");
  return earlier;
}

// Definitions are immutable; only "which version is the latest" changes, and the start
// statement's fence catches that. So a start reads a definition from the database only the
// first time this process starts its name (or version), and again after a fence failed. Both
// caches are bounded like the other caches of stored definitions (--limit-definition-cache,
// docs/limits.md#cached-definitions): an evicted entry is read again, with the same result.
const latestOf = perDbLruCache<StoredDefinition>({ bound: definitionCacheBound, weigh: weighStored });
const exactOf = perDbLruCache<StoredDefinition>({ bound: definitionCacheBound, weigh: weighStored });

function weighStored(stored: StoredDefinition): number {
  return definitionWeight(stored.definition);
}

function startDefinition(db: Db, name: string, version: number | undefined, fresh: boolean) {
  const cache = version === undefined ? latestOf(db) : exactOf(db);
  const key = version === undefined ? name : `${version}:${name}`;
  if (fresh) cache.drop(key);
  return cache.load(key, () => requireDefinition(db, name, version));
}

// ---- idempotent starts (docs/instances.md, "Idempotent starts") -------------------------

/** How long an Idempotency-Key names its start; the engine prunes older rows. */
export const START_KEY_RETENTION_MS = 24 * 60 * 60 * 1000;

interface StartKey {
  scope: string;
  key: string;
  hash: string;
}

/** sha256 of the body with object keys sorted: the same request serialised in another key order matches. */
function requestHash(body: Json): string {
  return createHash("sha256")
    .update(stringifyJson(sortedKeys(body)))
    .digest("hex");
}

function sortedKeys(value: Json): Json {
  if (Array.isArray(value)) return value.map(sortedKeys);
  if (value === null || typeof value !== "object" || isLosslessNumber(value)) return value;
  const out: { [key: string]: Json } = {};
  for (const k of Object.keys(value).sort()) out[k] = sortedKeys((value as { [key: string]: Json })[k]!);
  return out;
}

/** The start a live key names: its instance as it stands now, or 409 when the body differs. */
async function earlierStart(db: Db, key: StartKey, now: number): Promise<StartAnswer | undefined> {
  const [row] = rowsOf<{ instance_id: string; request_hash: string }>(
    await db.execute(sql`
      SELECT instance_id, request_hash FROM start_requests
      WHERE scope = ${key.scope} AND key = ${key.key} AND created_at > ${now - START_KEY_RETENTION_MS}`),
  );
  if (row === undefined) return undefined;
  if (row.request_hash !== key.hash)
    throw conflict(
      `Idempotency-Key "${key.key}" already started instance ${row.instance_id} with a different request (process, version or input); use a new key for a new start`,
    );
  const [instance] = await db
    .select({ id: instances.id, process: instances.process, version: instances.version, status: instances.status })
    .from(instances)
    .where(eq(instances.id, row.instance_id));
  if (instance === undefined) throw new Error(`Idempotency-Key "${key.key}" names a missing instance`);
  return { ...instance, status: instance.status as InstanceStatus, replayed: true };
}

/**
 * Takes the key for the instance being started, in the start's transaction: false when another
 * request holds it live (it committed first, or commits while this one waits on the key's row).
 * An expired row is taken over.
 */
async function claimStartKey(tx: Db, key: StartKey, instanceId: string, now: number): Promise<boolean> {
  const taken = await tx.execute(sql`
    INSERT INTO start_requests (scope, key, request_hash, instance_id, created_at)
    VALUES (${key.scope}, ${key.key}, ${key.hash}, ${instanceId}, ${now})
    ON CONFLICT (scope, key) DO UPDATE
      SET request_hash = excluded.request_hash, instance_id = excluded.instance_id, created_at = excluded.created_at
      WHERE start_requests.created_at <= ${now - START_KEY_RETENTION_MS}
    RETURNING instance_id`);
  return rowsOf(taken).length > 0;
}

/** Deletes up to 1,000 keys past the retention window; returns how many. */
export async function pruneStartKeys(db: Db, now: number): Promise<number> {
  const result = await db.execute(sql`
    DELETE FROM start_requests WHERE (scope, key) IN (
      SELECT scope, key FROM start_requests WHERE created_at <= ${now - START_KEY_RETENTION_MS}
      ORDER BY created_at LIMIT 1000)
    RETURNING key`);
  return rowsOf(result).length;
}
