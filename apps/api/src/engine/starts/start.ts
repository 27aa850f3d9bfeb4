import { createHash } from "node:crypto";
import { isLosslessNumber, type Json, stringifyJson } from "@baton/expr";
import { validateInput } from "@baton/model";
import type { Clock } from "../../clock.js";
import type { ServerConfig } from "../../config.js";
import { definitionCacheBound, definitionWeight } from "../../definitions/cache-bound.js";
import { requireDefinition, type StoredDefinition } from "../../definitions/store.js";
import { refuseFaultyDefinition } from "../../definitions/stored-fault.js";
import { invalid, Refusal } from "../../refusal.js";
import { type Db, inTransaction } from "../../storage/db.js";
import { newId } from "../../storage/ids.js";
import { perDbLruCache } from "../../storage/per-db-cache.js";
import { insertObjects, planExternalize } from "../../storage/objects.js";
import { instances } from "../../storage/schema/index.js";
import { appendLog, type LogEntry, logRow } from "../audit-log.js";
import type { EngineForRequests } from "../carry.js";
import type { InstanceStatus } from "../statuses.js";
import { freshInstanceRow, freshState } from "./fresh-row.js";
import { claimStartKey, earlierStart, START_KEY_RETENTION_MS, type StartAnswer, type StartKey } from "./start-keys.js";
import { firstAdvanceInMemory, insertStarted } from "./start-statement.js";
import { tracing } from "../../tracing/index.js";

// Starting a root (docs/engine.md "Starting an instance"): validate against the definition,
// then one statement (start-statement.ts), or one transaction when the input is stored as
// objects, taking the Idempotency-Key with it (start-keys.ts).

/** What a start needs of the server: a handler passes its Services. */
export interface StartDeps {
  db: Db;
  clock: Clock;
  config: ServerConfig;
  engine: EngineForRequests;
}

export type { StartAnswer } from "./start-keys.js";

export async function startInstance(
  body: { process: string; version?: number; input?: Json; key?: string },
  actor: string | null,
  services: StartDeps,
  idempotencyKey?: string,
  /** The request's span (docs/tracing.md "The trace of an instance"): the start span's parent. */
  parentTrace?: string,
): Promise<StartAnswer> {
  const key =
    idempotencyKey === undefined
      ? undefined
      : { scope: actor ?? "", key: idempotencyKey, hash: requestHash(body as unknown as Json) };
  const pinned = body.version !== undefined && body.version !== 0;
  // The instance's start span (docs/tracing.md "The trace of an instance"): a child of the
  // request's, and the parent stored on the row for every later span of the instance. One
  // span for the whole start, however many times a moved fence makes it try again.
  const tracer = tracing();
  const span = tracer?.startSpan(
    `start ${body.process}`,
    "producer",
    { "baton.process": body.process, ...(body.key === undefined ? {} : { "baton.business_key": body.key }) },
    parentTrace,
  );
  try {
    const answer = await startAttempts(body, actor, services, key, pinned, span && tracer!.traceparentOf(span));
    span?.setAttributes({
      "baton.instance_id": answer.id,
      "baton.tree_root": answer.id,
      "baton.version": answer.version,
      "baton.replayed": answer.replayed,
    });
    return answer;
  } catch (error) {
    if (span !== undefined) tracer!.fail(span, error instanceof Refusal ? error.kind : "error");
    throw error;
  } finally {
    span?.end();
  }
}

async function startAttempts(
  body: { process: string; version?: number; input?: Json; key?: string },
  actor: string | null,
  services: StartDeps,
  key: StartKey | undefined,
  pinned: boolean,
  traceParent: string | undefined,
): Promise<StartAnswer> {
  for (let attempt = 0; ; attempt++) {
    let started: StartAnswer | undefined;
    try {
      // A fence that failed means a newer version was registered since it was read: read it again.
      const stored = await startDefinition(services.db, body.process, pinned ? body.version : undefined, attempt > 0);
      started = await startOnce(stored, pinned, body, actor, services, key, traceParent);
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
  services: StartDeps,
  idempotency: StartKey | undefined,
  traceParent: string | undefined,
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
  return writeStart(stored, pinned, actor, services, idempotency, {
    input: checked.value,
    id,
    now,
    key,
    traceParent,
  });
}

async function writeStart(
  stored: StoredDefinition,
  pinned: boolean,
  actor: string | null,
  services: StartDeps,
  idempotency: StartKey | undefined,
  begun: { input: Json; id: string; now: number; key: string | null; traceParent: string | undefined },
): Promise<StartAnswer | undefined> {
  const { id, now, key, traceParent } = begun;
  const first = stored.definition.tasks[0]!;
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
  const plan = planExternalize(freshState(begun.input), services.config.objectThresholdBytes);
  const fresh = {
    id,
    process: stored.name,
    version: stored.version,
    task: first.id,
    state: stringifyJson(plan.value),
    key,
    traceParent,
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
    const landed = await insertStarted(
      services.db,
      advanced.row,
      [startedLine, ...advanced.logs],
      pinned,
      null,
      claim,
      advanced.visits,
    );
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
async function keyTaken(services: StartDeps, idempotency: StartKey | undefined): Promise<StartAnswer> {
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
