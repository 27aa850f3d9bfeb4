import { type Json, stringifyJson } from "@baton/expr";
import { validateInput } from "@baton/model";
import { requireDefinition } from "../definitions/store.js";
import { invalid } from "../refusal.js";
import type { Services } from "../services.js";
import { inTransaction } from "../storage/db.js";
import { newId } from "../storage/ids.js";
import { externalize } from "../storage/objects.js";
import { instances } from "../storage/schema/index.js";
import { appendLog, type LogEntry } from "./audit-log.js";

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
    createdAt: fresh.now,
    updatedAt: fresh.now,
  };
}

/** The state an instance starts with: its input, no outputs, no children. */
export function freshState(input: Json): Json {
  return { input, outputs: {}, _children: {} };
}

export async function startInstance(
  body: { process: string; version?: number; input?: Json },
  actor: string | null,
  services: Services,
) {
  const stored = await requireDefinition(services.db, body.process, body.version);
  const def = stored.definition;
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
  const state = freshState(checked.value);
  const started: LogEntry = {
    instanceId: id,
    rootId: id,
    level: "info",
    event: "instance.started",
    message: `started ${stored.name} version ${stored.version} at task "${first.id}"`,
    task: first.id,
    actor,
    data: { process: stored.name, version: stored.version },
  };
  await inTransaction(services.db, async (tx) => {
    const storedState = await externalize(tx, services.clock, state, services.config.objectThresholdBytes);
    await tx.insert(instances).values(
      freshInstanceRow({
        id,
        process: stored.name,
        version: stored.version,
        task: first.id,
        state: stringifyJson(storedState),
        now,
      }),
    );
    await appendLog(tx, services.clock, started);
  });
  services.engine.wake();
  return { id, process: stored.name, version: stored.version, status: "running" as const };
}
