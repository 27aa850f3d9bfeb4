// The instance one fire starts (docs/schedules.md "Fires"): the target version as it is when the
// fire runs (a channel's pointer read in the firing transaction), the input shape evaluated and
// checked, and the fresh row built by the one row builder, freshInstanceRow.
import { stringifyJson } from "@baton/expr";
import type { Definition } from "@baton/model";
import { sql } from "drizzle-orm";
import { storedDefinition } from "../../definitions/store.js";
import { storedDefinitionFault } from "../../definitions/stored-fault.js";
import type { ServerConfig } from "../../config.js";
import { type Db, rowsOf } from "../../storage/db.js";
import { newId } from "../../storage/ids.js";
import { type PlannedObject, planExternalize } from "../../storage/objects.js";
import type { InstanceInsert } from "../../storage/schema/index.js";
import type { LogEntry } from "../audit-log.js";
import { freshInstanceRow, freshState } from "../starts/fresh-row.js";
import { tracing } from "../../tracing/index.js";
import { type FireOrigin, fireInput, type ReadSpec } from "./spec.js";

/** What a schedule starts: a process and a channel or version (neither: the latest). */
export interface Target {
  process: string;
  channel: string | null;
  version: number | null;
}

export type Resolved = { ok: true; version: number; def: Definition } | { ok: false; reason: string };

/** The version `target` names now, read through `tx`; a reason when there is none to start. */
export async function resolveTarget(db: Db, tx: Db, target: Target): Promise<Resolved> {
  let version = target.version;
  if (target.channel !== null) {
    const [row] = rowsOf<{ version: number }>(
      await tx.execute(
        sql`SELECT version FROM channels WHERE name = ${target.process} AND channel = ${target.channel}`,
      ),
    );
    if (row === undefined)
      return { ok: false, reason: `channel "${target.channel}" has no version of process "${target.process}"` };
    version = Number(row.version);
  } else if (version === null) {
    const [row] = rowsOf<{ version: number | null }>(
      await tx.execute(sql`SELECT max(version) AS version FROM definitions WHERE name = ${target.process}`),
    );
    if (row?.version == null) return { ok: false, reason: `process "${target.process}" is not registered` };
    version = Number(row.version);
  }
  const def = await storedDefinition(db, target.process, version, tx);
  if (def === undefined)
    return { ok: false, reason: `process "${target.process}" has no version ${version} (it was never registered)` };
  return { ok: true, version, def };
}

/** The business key of a fire's instance: the schedule and the fire time (docs/schedules.md "Fires"). */
export function fireKey(schedule: string, fireAt: number, origin: FireOrigin): string {
  const at = new Date(fireAt).toISOString();
  return origin === "trigger" ? `schedule:${schedule}:trigger:${at}` : `schedule:${schedule}:${at}`;
}

export interface FireStart {
  row: InstanceInsert;
  log: LogEntry;
  objects: PlannedObject[];
}

/** The instance row, log line and stored objects of one fire, or the reason it cannot start. */
export function buildFireStart(
  schedule: string,
  spec: ReadSpec,
  resolved: Resolved,
  fireAt: number,
  origin: FireOrigin,
  now: number,
  config: ServerConfig,
): { ok: true; start: FireStart } | { ok: false; reason: string } {
  if (!resolved.ok) return resolved;
  const { def, version } = resolved;
  const fault = storedDefinitionFault(def, version);
  if (fault !== undefined) return { ok: false, reason: fault };
  const first = def.tasks[0];
  if (first === undefined) return { ok: false, reason: `process "${def.name}" version ${version} has no tasks to run` };
  const input = fireInput(spec, schedule, fireAt, origin, now, def, config.limits);
  if (!input.ok) return input;
  const id = newId(now);
  const key = fireKey(schedule, fireAt, origin);
  const plan = planExternalize(freshState(input.value), config.objectThresholdBytes);
  // The fire's span, the root of the instance's trace (docs/tracing.md "Spans").
  const tracer = tracing();
  const span = tracer?.startSpan(`fire ${schedule}`, "producer", {
    "baton.schedule": schedule,
    "baton.fire_origin": origin,
    "baton.fire_time": new Date(fireAt).toISOString(),
    "baton.process": def.name,
    "baton.version": version,
    "baton.instance_id": id,
    "baton.tree_root": id,
    "baton.business_key": key,
  });
  span?.end();
  const row = freshInstanceRow({
    id,
    process: def.name,
    version,
    task: first.id,
    state: stringifyJson(plan.value),
    key,
    traceParent: span && tracer!.traceparentOf(span),
    now,
  });
  const log: LogEntry = {
    instanceId: id,
    rootId: id,
    level: "info",
    event: "instance.started",
    message: `started ${def.name} version ${version} at task "${first.id}" (schedule "${schedule}", fire time ${new Date(fireAt).toISOString()})`,
    task: first.id,
    actor: null,
    data: { process: def.name, version, key, schedule, fire_time: new Date(fireAt).toISOString(), origin },
  };
  return { ok: true, start: { row, log, objects: plan.objects } };
}
