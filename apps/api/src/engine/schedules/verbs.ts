// The schedule resource's verbs (docs/schedules.md "Endpoints and permissions"): create or
// replace, delete, pause, resume, trigger and backfill. Each is one transaction; trigger and
// backfill run their fires exactly as the firing pass does (fire.ts), under the row lock.
import { stringifyJson } from "@baton/expr";
import { sql } from "drizzle-orm";
import { flagOf } from "../../limits.js";
import { conflict, invalid, notFound } from "../../refusal.js";
import type { Clock } from "../../clock.js";
import type { ServerConfig } from "../../config.js";
import type { EngineMetrics } from "../../metrics/metrics.js";
import { type Db, inTransaction, rowsOf } from "../../storage/db.js";
import type { EngineForRequests } from "../carry.js";
import { dueAt, nextFireAfter } from "./calendar.js";
import { type FireContext, type FireRecord, type FireTime, newBatch, planFires, writeFires } from "./fire.js";
import { resolveTarget, type Target } from "./fire-start.js";
import { lockedScheduleState, msOrNull, SCHEDULE_COLUMNS, type ScheduleRow } from "./rows.js";
import { inputShapeProblems, type ScheduleBody, specOfBody } from "./spec.js";

/** What the verbs need of the server: a handler passes its Services. */
export interface ScheduleDeps {
  db: Db;
  clock: Clock;
  config: ServerConfig;
  engine: Pick<EngineForRequests, "wake">;
  metrics?: { engine: Pick<EngineMetrics, "scheduleFired"> };
}

/** Creates or replaces schedule `name`; `created` is false for a replace. */
export async function putSchedule(
  services: ScheduleDeps,
  name: string,
  body: ScheduleBody,
  actor: string | null,
): Promise<{ created: boolean }> {
  const { db, clock, config } = services;
  const now = clock.now();
  const spec = specOfBody(body, now);
  const target: Target = { process: body.process, channel: body.channel ?? null, version: body.version ?? null };
  const resolved = await resolveTarget(db, db, target);
  if (!resolved.ok) {
    const path = target.channel !== null ? "body.channel" : target.version !== null ? "body.version" : "body.process";
    throw invalid(`the schedule cannot start its target: ${resolved.reason}`, [{ path, message: resolved.reason }]);
  }
  const problems = inputShapeProblems(spec.input, resolved.def, resolved.version);
  if (problems.length > 0) {
    const lines = problems.map((p) => `${p.path}: ${p.message}`).join("; ");
    throw invalid(
      `the schedule's input does not fit process "${target.process}" version ${resolved.version}: ${lines}`,
      problems,
    );
  }
  const next = nextFireAfter(spec.calendar, now);
  if (next === null)
    throw invalid(`the schedule never fires after now (${new Date(now).toISOString()}): check cron and end_at`, [
      { path: "body", message: "the calendar has no fire time after now" },
    ]);
  const nextDue = dueAt(name, next, spec.jitterMs);
  return inTransaction(db, async (tx) => {
    // Creations are serialised so that the count below is exact across replicas.
    await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtext('baton.schedules'))`);
    const [existing] = rowsOf<{ name: string }>(
      await tx.execute(sql`SELECT name FROM schedules WHERE name = ${name} FOR UPDATE`),
    );
    if (existing === undefined) {
      const [count] = rowsOf<{ n: number }>(await tx.execute(sql`SELECT count(*)::int AS n FROM schedules`));
      if (Number(count?.n ?? 0) >= config.limits.schedules)
        throw conflict(
          `there are already ${count?.n} schedules, the most allowed (${flagOf("schedules")}, docs/limits.md); delete one first`,
        );
    }
    const text = stringifyJson(spec.stored as never);
    await tx.execute(sql`
      INSERT INTO schedules (name, process, channel, version, spec, paused, next_fire_at, next_due_at, actor, created_at, updated_at)
      VALUES (${name}, ${target.process}, ${target.channel}, ${target.version}, ${text}, ${body.paused ?? false},
              ${next}, ${nextDue}, ${actor}, ${now}, ${now})
      ON CONFLICT (name) DO UPDATE SET process = excluded.process, channel = excluded.channel, version = excluded.version,
        spec = excluded.spec, paused = excluded.paused, next_fire_at = excluded.next_fire_at,
        next_due_at = excluded.next_due_at, actor = excluded.actor, updated_at = excluded.updated_at`);
    return { created: existing === undefined };
  });
}

export async function deleteSchedule(db: Db, name: string): Promise<boolean> {
  return inTransaction(db, async (tx) => {
    const deleted = rowsOf(await tx.execute(sql`DELETE FROM schedules WHERE name = ${name} RETURNING name`));
    await tx.execute(sql`DELETE FROM schedule_fires WHERE schedule = ${name}`);
    return deleted.length > 0;
  });
}

/** Pauses or resumes; a resumed schedule runs the fires it missed that are still inside its catch-up window. */
export async function setSchedulePaused(db: Db, name: string, paused: boolean, now: number): Promise<void> {
  const changed = rowsOf(
    await db.execute(
      sql`UPDATE schedules SET paused = ${paused}, updated_at = ${now} WHERE name = ${name} RETURNING name`,
    ),
  );
  if (changed.length === 0) throw missing(name);
}

/** Fires schedule `name` now, once, under its overlap policy. */
export async function triggerSchedule(services: ScheduleDeps, name: string): Promise<FireRecord> {
  const now = services.clock.now();
  const [fired] = await fireLocked(services, name, [{ fireAt: now, dueAt: now, origin: "trigger" }]);
  if (fired === undefined) throw conflict(`schedule "${name}" was already triggered at ${new Date(now).toISOString()}`);
  return fired;
}

/** Fires every calendar time of `name` in [from, to] that has not fired yet. */
export async function backfillSchedule(
  services: ScheduleDeps,
  name: string,
  from: number,
  to: number,
): Promise<FireRecord[]> {
  const { db, clock, config } = services;
  if (to < from) throw invalid("`to` must not be before `from`", [{ path: "body.to", message: "before `from`" }]);
  if (to > clock.now())
    throw invalid("a backfill runs past fire times only: `to` is later than now", [
      { path: "body.to", message: `later than now (${new Date(clock.now()).toISOString()})` },
    ]);
  const row = await readSchedule(db, name);
  const { calendar } = lockedScheduleState(db, row).spec;
  const most = config.limits.scheduleBackfillFires;
  const times: FireTime[] = [];
  for (let at = nextFireAfter(calendar, from - 1); at !== null && at <= to; at = nextFireAfter(calendar, at)) {
    if (times.length === most)
      throw invalid(
        `the range holds more than ${most} fire times, the most one backfill may start (${flagOf("scheduleBackfillFires")}, docs/limits.md); backfill a shorter range`,
        [{ path: "body.to", message: `more than ${most} fire times from \`from\`` }],
      );
    times.push({ fireAt: at, dueAt: at, origin: "backfill" });
  }
  // Checked under the schedule's row lock, which the prune sweep takes too (prune.ts).
  return fireLocked(services, name, times, (locked) => {
    const pruned = msOrNull(locked.pruned_through);
    if (pruned !== null && from <= pruned)
      throw invalid(
        `the fire records of schedule "${name}" up to ${new Date(pruned).toISOString()} were pruned (${flagOf("scheduleFiresKept")} keeps the newest), so a backfill could fire those times again; backfill from after it`,
        [{ path: "body.from", message: `at or before ${new Date(pruned).toISOString()}, whose records were pruned` }],
      );
  });
}

async function fireLocked(
  services: ScheduleDeps,
  name: string,
  times: FireTime[],
  check: (row: ScheduleRow) => void = () => {},
): Promise<FireRecord[]> {
  const { db, clock, config } = services;
  const fired = await inTransaction(db, async (tx) => {
    const [row] = rowsOf<ScheduleRow>(
      await tx.execute(sql`
        SELECT ${SCHEDULE_COLUMNS} FROM schedules s LEFT JOIN instances i ON i.id = s.last_instance_id
        WHERE s.name = ${name} FOR UPDATE OF s`),
    );
    if (row === undefined) throw missing(name);
    check(row);
    const state = lockedScheduleState(db, row);
    const ctx: FireContext = { db, tx, clock, config, now: clock.now(), targets: new Map() };
    const batch = newBatch();
    await planFires(ctx, state, times, false, batch);
    const { landed, lastStarted } = await writeFires(ctx, batch);
    await tx.execute(sql`
      UPDATE schedules SET buffered_fire_at = ${state.bufferedFireAt},
        last_instance_id = ${lastStarted.get(name) ?? row.last_instance_id}
      WHERE name = ${name}`);
    return landed;
  });
  for (const r of fired) services.metrics?.engine.scheduleFired(r.origin, r.outcome);
  if (fired.some((r) => r.instanceId !== null)) services.engine.wake();
  return fired;
}

/** The schedule row, with its last instance's status; not_found when there is none. */
export async function readSchedule(db: Db, name: string): Promise<ScheduleRow> {
  const [row] = rowsOf<ScheduleRow>(
    await db.execute(sql`
      SELECT ${SCHEDULE_COLUMNS} FROM schedules s LEFT JOIN instances i ON i.id = s.last_instance_id
      WHERE s.name = ${name}`),
  );
  if (row === undefined) throw missing(name);
  return row;
}

function missing(name: string) {
  return notFound(`schedule "${name}" does not exist`);
}
