import { parseJson } from "@baton/expr";
import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createChecker } from "../../src/definitions/checker.js";
import {
  backfillSchedule,
  lastFires,
  putSchedule,
  readSchedule,
  setSchedulePaused,
  triggerSchedule,
} from "../../src/engine/index.js";
import { pruneFires } from "../../src/engine/schedules/prune.js";
import type { ScheduleBody } from "../../src/engine/schedules/spec.js";
import { Refusal } from "../../src/refusal.js";
import type { Services } from "../../src/services.js";
import { rowsOf } from "../../src/storage/db.js";
import { channels, instances } from "../../src/storage/schema/index.js";
import { type Harness, openHarness, quietLog } from "../support/engine-harness.js";

let h: Harness;
let services: Services;
const MINUTE = 60_000;

beforeAll(async () => {
  h = await openHarness();
  services = {
    db: h.db,
    database: h.database,
    dbKind: h.database.kind,
    clock: h.clock,
    config: h.config,
    log: quietLog,
    workerId: "worker-a",
    engine: h.engine,
    checker: createChecker({ threads: 1, queue: 0 }),
  };
  // "slow" stays running (a one-hour delay) until the test moves the clock past it.
  await h.deploy({
    name: "slow",
    input_schema: { type: "object", properties: { at: { type: "string" } }, required: ["at"] },
    tasks: [
      { id: "wait", action: { type: "delay", for: "1h" } },
      { id: "done", output: "$: input.at" },
    ],
  });
  await h.deploy({
    name: "quick",
    input_schema: { type: "object", properties: { at: { type: "string" } }, required: ["at"] },
    tasks: [{ id: "done", output: "$: input.at" }],
  });
});
afterAll(async () => {
  await h?.close();
});

async function put(name: string, body: Partial<ScheduleBody>) {
  return putSchedule(
    services,
    name,
    { process: "slow", every: "1m", input: { at: "$: schedule.fire_time" }, ...body },
    "token:ops",
  );
}

/** The instances a schedule started, oldest first. */
async function startedBy(name: string) {
  const rows = await h.db
    .select({
      id: instances.id,
      status: instances.status,
      key: instances.key,
      state: instances.state,
      version: instances.version,
    })
    .from(instances)
    .where(sql`${instances.key} LIKE ${`schedule:${name}:%`}`)
    .orderBy(instances.id);
  return rows.map((r) => ({ ...r, input: (parseJson(r.state) as { input: { at: string } }).input }));
}

async function outcomes(name: string) {
  return (await lastFires(h.db, name, 100)).reverse().map((f) => f.outcome);
}

describe("schedules, in process", () => {
  it("fires once per fire time on the tick clock, keyed by schedule and fire time, the input reading the fire time", async () => {
    await put("every-minute", { process: "quick", overlap: "allow_all" });
    const row = await readSchedule(h.db, "every-minute");
    const first = Number(row.next_fire_at);
    await h.tick(first - h.clock.now());
    await h.tick(0);
    const started = await startedBy("every-minute");
    expect(started).toHaveLength(1);
    expect(started[0]!.key).toBe(`schedule:every-minute:${new Date(first).toISOString()}`);
    expect(started[0]!.input).toEqual({ at: new Date(first).toISOString() });
    await h.tick(0);
    expect(await startedBy("every-minute")).toHaveLength(1);
    await h.tick(MINUTE);
    expect(await startedBy("every-minute")).toHaveLength(2);
    await setSchedulePaused(h.db, "every-minute", true, h.clock.now());
  });

  it("skip: a fire while the previous run is live is recorded skipped", async () => {
    await put("skipper", { overlap: "skip" });
    await h.tick(MINUTE);
    await h.tick(MINUTE);
    expect(await outcomes("skipper")).toEqual(["started", "skipped"]);
    expect(await startedBy("skipper")).toHaveLength(1);
    await setSchedulePaused(h.db, "skipper", true, h.clock.now());
  });

  it("allow_all: every fire starts", async () => {
    await put("all", { overlap: "allow_all" });
    await h.tick(MINUTE);
    await h.tick(MINUTE);
    const started = await startedBy("all");
    expect(started.map((s) => s.status)).toEqual(["running", "running"]);
    await setSchedulePaused(h.db, "all", true, h.clock.now());
  });

  it("cancel_previous: the live run is cancelled in the transaction that starts the next", async () => {
    await put("canceller", { overlap: "cancel_previous" });
    await h.tick(MINUTE);
    await h.tick(MINUTE);
    const started = await startedBy("canceller");
    expect(started.map((s) => s.status)).toEqual(["cancelled", "running"]);
    await setSchedulePaused(h.db, "canceller", true, h.clock.now());
  });

  it("buffer_one: one fire waits for the live run, a later one takes the buffer, and it starts once the run ends", async () => {
    await put("buffered", { overlap: "buffer_one", every: "25m" });
    await h.tick(25 * MINUTE);
    await h.tick(25 * MINUTE);
    await h.tick(25 * MINUTE);
    expect(await outcomes("buffered")).toEqual(["started", "skipped", "buffered"]);
    // The first run's hour ends (before the next fire time): it completes, the buffered fire starts.
    await h.tick(11 * MINUTE);
    await h.tick(0);
    await h.tick(0);
    const started = await startedBy("buffered");
    expect(started).toHaveLength(2);
    expect(started[0]!.status).toBe("completed");
    expect(await outcomes("buffered")).toEqual(["started", "skipped", "started"]);
    await setSchedulePaused(h.db, "buffered", true, h.clock.now());
  });

  it("catch-up: after the clock jumped past many fires, those outside the window are missed and the rest fire, bounded", async () => {
    await put("catchup", { process: "quick", overlap: "allow_all", catchup_window: "5m" });
    await h.tick(0);
    h.clock.advance(30 * MINUTE);
    await h.tick(0);
    const fires = await lastFires(h.db, "catchup", 100);
    expect(fires.filter((f) => f.outcome === "missed")).toHaveLength(1);
    expect(fires.filter((f) => f.outcome === "started").length).toBeGreaterThanOrEqual(5);
    expect(fires.filter((f) => f.outcome === "started").length).toBeLessThanOrEqual(6);
    await setSchedulePaused(h.db, "catchup", true, h.clock.now());
  });

  it("backfill fires each past calendar time once, and a second backfill of the same range fires nothing", async () => {
    await put("nightly-ny", {
      process: "quick",
      every: undefined,
      cron: ["30 2 * * *"],
      time_zone: "America/New_York",
      paused: true,
    });
    // 2026-03-08 02:30 does not exist in New York: that day fires once, at 03:00 EDT (07:00Z).
    const fires = await backfillSchedule(
      services,
      "nightly-ny",
      Date.parse("2026-03-07T00:00:00Z"),
      Date.parse("2026-03-09T12:00:00Z"),
    );
    expect(fires.map((f) => new Date(f.fireAt).toISOString())).toEqual([
      "2026-03-07T07:30:00.000Z",
      "2026-03-08T07:00:00.000Z",
      "2026-03-09T06:30:00.000Z",
    ]);
    expect(fires.every((f) => f.outcome === "started")).toBe(true);
    expect(
      await backfillSchedule(
        services,
        "nightly-ny",
        Date.parse("2026-03-07T00:00:00Z"),
        Date.parse("2026-03-09T12:00:00Z"),
      ),
    ).toEqual([]);
    expect(await startedBy("nightly-ny")).toHaveLength(3);
  });

  it("backfill over the fall-back night in Europe/Berlin fires the repeated hour once", async () => {
    await put("hourly-berlin", {
      process: "quick",
      every: undefined,
      cron: ["30 * * * *"],
      time_zone: "Europe/Berlin",
      paused: true,
    });
    const fires = await backfillSchedule(
      services,
      "hourly-berlin",
      Date.parse("2026-10-24T23:00:00Z"),
      Date.parse("2026-10-25T02:59:00Z"),
    );
    // 02:30 CEST (00:30Z) fires; 02:30 CET (01:30Z) is the same wall-clock time and does not.
    expect(fires.map((f) => new Date(f.fireAt).toISOString())).toEqual([
      "2026-10-24T23:30:00.000Z",
      "2026-10-25T00:30:00.000Z",
      "2026-10-25T02:30:00.000Z",
    ]);
  });

  it("a channel-bound schedule starts the version the channel points at when it fires, and a move moves it", async () => {
    await h.deploy({
      name: "quick",
      input_schema: { type: "object", properties: { at: { type: "string" } } },
      tasks: [{ id: "v2", output: "$: 2" }],
    });
    await h.db.insert(channels).values({ name: "quick", channel: "prod", version: 1, updatedAt: h.clock.now() });
    await put("on-prod", { process: "quick", channel: "prod", overlap: "allow_all" });
    await h.tick(MINUTE);
    await h.db.update(channels).set({ version: 2 }).where(eq(channels.channel, "prod"));
    await h.tick(MINUTE);
    expect((await startedBy("on-prod")).map((s) => s.version)).toEqual([1, 2]);
    // The pointer removed: the fire is recorded failed with the reason, and the schedule goes on.
    await h.db.delete(channels).where(eq(channels.channel, "prod"));
    await h.tick(MINUTE);
    const [last] = await lastFires(h.db, "on-prod", 1);
    expect(last!.outcome).toBe("failed");
    expect(last!.reason).toMatch(/channel "prod" has no version of process "quick"/);
    expect(Number((await readSchedule(h.db, "on-prod")).next_fire_at)).toBeGreaterThan(h.clock.now());
    await setSchedulePaused(h.db, "on-prod", true, h.clock.now());
  });

  it("trigger fires now under the overlap policy", async () => {
    await put("manual", { process: "quick", paused: true });
    const fire = await triggerSchedule(services, "manual");
    expect(fire.outcome).toBe("started");
    expect((await startedBy("manual"))[0]!.key).toMatch(/^schedule:manual:trigger:/);
  });

  it("refuses an input shape the target's input_schema refuses, and a calendar that never fires, naming the field", async () => {
    const refused = (body: Partial<ScheduleBody>) =>
      put("bad", body).then(
        () => undefined,
        (error: unknown) => error as Refusal,
      );
    const wrongType = await refused({ input: { at: "$: schedule.fire_ms" } });
    expect(wrongType).toBeInstanceOf(Refusal);
    expect(wrongType!.fields?.[0]?.path).toMatch(/^body\.input/);
    const missing = await refused({ input: {} });
    expect(missing!.message).toMatch(/at/);
    const never = await refused({ every: undefined, cron: ["0 0 30 2 *"] });
    expect(never!.message).toMatch(/never fires/);
    const zone = await refused({ cron: ["0 0 * * *"], time_zone: "Mars/Base" });
    expect(zone!.fields?.[0]?.path).toBe("body.time_zone");
    // A process that takes no input: the default input {} fits it, a key does not.
    await h.deploy({ name: "bare", tasks: [{ id: "only" }] });
    await expect(put("bare-ok", { process: "bare", input: undefined, paused: true })).resolves.toEqual({
      created: true,
    });
    const extra = await refused({ process: "bare", input: { x: 1 } });
    expect(extra!.message).toMatch(/refuses|undeclared/);
  });

  it("prunes fire records beyond the kept bound, and refuses a backfill that would reach the pruned times", async () => {
    await put("pruned", { process: "quick", overlap: "allow_all", every: "1s", catchup_window: "1h" });
    h.clock.advance(30_000);
    await h.tick(0);
    expect((await lastFires(h.db, "pruned", 100)).length).toBeGreaterThanOrEqual(30);
    let after = "";
    do after = (await pruneFires(h.db, after, 10)).next;
    while (after !== "");
    const kept = await lastFires(h.db, "pruned", 100);
    expect(kept).toHaveLength(10);
    const through = Number((await readSchedule(h.db, "pruned")).pruned_through);
    expect(through).toBeLessThan(Date.parse(kept.at(-1)!.fire_time));
    const refused = await backfillSchedule(services, "pruned", through - 5_000, through).catch((e: Refusal) => e);
    expect(refused).toBeInstanceOf(Refusal);
    expect((refused as Refusal).message).toMatch(/--limit-schedule-fires-kept/);
    await setSchedulePaused(h.db, "pruned", true, h.clock.now());
  });

  it("two engines on one database fire each fire time once", async () => {
    const other = h.newEngine("worker-b");
    await put("raced", { process: "quick", overlap: "allow_all", every: "1s", catchup_window: "1h" });
    for (let i = 0; i < 5; i++) {
      h.clock.advance(7_000);
      await Promise.all([h.engine.tick(), other.tick(), h.engine.tick(), other.tick()]);
    }
    const keys = (await startedBy("raced")).map((s) => s.key);
    expect(keys.length).toBeGreaterThanOrEqual(30);
    expect(new Set(keys).size).toBe(keys.length);
    const dup = rowsOf<{ n: number }>(
      await h.db.execute(
        sql`SELECT count(*)::int AS n FROM schedule_fires WHERE schedule = 'raced' GROUP BY fire_at HAVING count(*) > 1`,
      ),
    );
    expect(dup).toEqual([]);
  });
});
