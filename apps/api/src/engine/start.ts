import type { Json } from "@baton/expr";
import { stringifyJson } from "@baton/expr";
import { validateInput } from "@baton/model";
import { getDefinition, latestDefinition, type StoredDefinition } from "../definitions/store.js";
import { invalid, notFound } from "../http/api-error.js";
import type { Services } from "../services.js";
import type { Db } from "../storage/db.js";
import { newId } from "../storage/ids.js";
import { externalize } from "../storage/objects.js";
import { instances } from "../storage/schema/index.js";
import { appendLog, type LogEntry } from "./audit-log.js";

async function resolveDefinition(db: Db, process: string, version: number | undefined): Promise<StoredDefinition> {
  if (version === undefined) {
    const latest = await latestDefinition(db, process);
    if (!latest) throw notFound(`process "${process}" is not registered`);
    return latest;
  }
  const exact = await getDefinition(db, process, version);
  if (exact) return exact;
  const latest = await latestDefinition(db, process);
  if (!latest) throw notFound(`process "${process}" is not registered`);
  throw notFound(`process "${process}" has no version ${version}; latest is ${latest.version}`);
}

// ---- start ----------------------------------------------------------------------------

export async function startInstance(
  body: { process: string; version?: number; input?: Json; key?: string },
  actor: string | null,
  services: Services,
) {
  const stored = await resolveDefinition(services.db, body.process, body.version);
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
  const state: Json = { input: checked.value, outputs: {}, _children: {} };
  const started: LogEntry = {
    instanceId: id,
    rootId: id,
    level: "info",
    event: "instance.started",
    message: `started ${stored.name} version ${stored.version} at task "${first.id}"`,
    task: first.id,
    actor,
    data: { process: stored.name, version: stored.version, ...(body.key === undefined ? {} : { key: body.key }) },
  };
  await services.db.transaction(async (tx) => {
    const storedState = await externalize(tx, services.clock, state, services.config.objectThresholdBytes);
    await tx.insert(instances).values({
      id,
      rootId: id,
      parentId: null,
      process: stored.name,
      version: stored.version,
      status: "running",
      phase: null,
      task: first.id,
      state: stringifyJson(storedState),
      taskEpoch: 1,
      leaseEpoch: 0,
      wakeAt: now,
      key: body.key ?? null,
      createdAt: now,
      updatedAt: now,
    });
    await appendLog(tx, services.clock, started);
  });
  services.engine.wake();
  return { id, process: stored.name, version: stored.version, status: "running" };
}
