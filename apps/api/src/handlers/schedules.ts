// Schedules (docs/schedules.md): thin handlers over engine/schedules.
import type { ScheduleFire } from "@baton/actions";
import { and, eq, sql } from "drizzle-orm";
import { scheduleCovered, scopeFilter } from "../auth/scope.js";
import { sqlTextArray } from "../storage/sql-arrays.js";
import {
  backfillSchedule,
  deleteSchedule,
  lastFires,
  putSchedule,
  readSchedule,
  type ScheduleRow,
  scheduleView,
  setSchedulePaused,
  statusesOf,
  triggerSchedule,
} from "../engine/index.js";
import type { ActionHandlers } from "../http/action-handler.js";
import { iso } from "../format.js";
import type { Db } from "../storage/db.js";
import { schedules } from "../storage/schema/index.js";
import { type ListSpec, mapPage, paginate } from "../views/pagination.js";

type Row = typeof schedules.$inferSelect;

const scheduleList: ListSpec<Row> = {
  list: "schedules",
  sorts: { name: { columns: [schedules.name], values: (r) => [r.name] } },
  defaultSort: "name",
  defaultOrder: "asc",
};

function asScheduleRow(row: Row, lastStatus: string | null): ScheduleRow {
  return {
    name: row.name,
    process: row.process,
    channel: row.channel,
    version: row.version,
    spec: row.spec,
    paused: row.paused,
    next_fire_at: row.nextFireAt,
    next_due_at: row.nextDueAt,
    buffered_fire_at: row.bufferedFireAt,
    last_instance_id: row.lastInstanceId,
    last_status: lastStatus,
    pruned_through: row.prunedThrough,
    actor: row.actor,
    created_at: row.createdAt,
    updated_at: row.updatedAt,
  };
}

async function fullView(db: Db, name: string) {
  const row = await readSchedule(db, name);
  return { ...scheduleView(db, row), fires: await lastFires(db, name) };
}

function fireOf(record: {
  fireAt: number;
  dueAt: number;
  origin: string;
  outcome: string;
  instanceId: string | null;
  reason: string | null;
}): ScheduleFire {
  return {
    fire_time: iso(record.fireAt),
    origin: record.origin as ScheduleFire["origin"],
    outcome: record.outcome as ScheduleFire["outcome"],
    instance_id: record.instanceId,
    reason: record.reason,
    due_at: iso(record.dueAt),
  };
}

export const scheduleHandlers = {
  putSchedule: async ({ params, body, principal }, services) => {
    const { created } = await putSchedule(services, params.name, body, principal.actor);
    return { body: { ...scheduleView(services.db, await readSchedule(services.db, params.name)), created } };
  },

  listSchedules: async ({ query, principal }, { db, config }) => {
    const only = await scopeFilter(db, principal);
    const where = and(
      query.process === undefined ? undefined : eq(schedules.process, query.process),
      only === null
        ? undefined
        : only.length === 0
          ? sql`false`
          : sql`${schedules.process} = ANY(${sqlTextArray(only)})`,
    );
    const page = await paginate(db, schedules, where, scheduleList, query, config.limits.pageCount);
    const statuses = await statusesOf(
      db,
      page.items.flatMap((r) => (r.lastInstanceId === null ? [] : [r.lastInstanceId])),
    );
    return {
      body: mapPage(page, (r) =>
        scheduleView(db, asScheduleRow(r, r.lastInstanceId === null ? null : (statuses.get(r.lastInstanceId) ?? null))),
      ),
    };
  },

  getSchedule: async ({ params }, { db }) => ({ body: await fullView(db, params.name) }),

  // Out of scope it is as a missing schedule: nothing deleted (docs/auth.md "Scopes").
  deleteSchedule: async ({ params, principal }, { db }) => ({
    body: { deleted: (await scheduleCovered(db, principal, params.name)) && (await deleteSchedule(db, params.name)) },
  }),

  pauseSchedule: async ({ params }, { db, clock }) => {
    await setSchedulePaused(db, params.name, true, clock.now());
    return { body: await fullView(db, params.name) };
  },

  resumeSchedule: async ({ params }, { db, clock, engine }) => {
    await setSchedulePaused(db, params.name, false, clock.now());
    engine.wake();
    return { body: await fullView(db, params.name) };
  },

  triggerSchedule: async ({ params }, services) => ({ body: fireOf(await triggerSchedule(services, params.name)) }),

  backfillSchedule: async ({ params, body }, services) => {
    const fires = await backfillSchedule(services, params.name, Date.parse(body.from), Date.parse(body.to));
    return { body: { fires: fires.map(fireOf) } };
  },
} satisfies ActionHandlers;
