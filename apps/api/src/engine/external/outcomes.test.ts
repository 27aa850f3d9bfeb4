import { onPostgres } from "@baton/testkit";
import { sql } from "drizzle-orm";
import { refusal } from "../../../test/support/refusal.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { askOnce } from "../../../test/support/definitions.js";
import { type Harness, heldWrite, openHarness } from "../../../test/support/engine-harness.js";
import { rowsOf } from "../../storage/db.js";

const rows = (result: unknown) => rowsOf<Record<string, unknown>>(result);
import { claimExternalTasks, releaseExternalTask, renewExternalTasks, tokenHash } from "./claims.js";
import { resolveExternalTask } from "./outcomes.js";
import { signalExternalTask } from "./signal.js";

let h: Harness;

beforeAll(async () => {
  h = await openHarness();
  await h.deploy(askOnce("ask"));
});
afterAll(async () => {
  await h?.close();
});

const claim = (over: Partial<Parameters<typeof claimExternalTasks>[2]> = {}) =>
  claimExternalTasks(h.db, h.clock, { workerId: "w", limit: 10, claimMs: 30_000, process: "ask", ...over });

async function parked(): Promise<string> {
  const id = await h.start("ask");
  await h.tick();
  return id;
}

describe("external tasks (in-process)", () => {
  it("tokens are opaque and only their hash is stored", async () => {
    const id = await parked();
    const [item] = await claim();
    expect(item.token).toMatch(/^ext_[A-Za-z0-9_-]{32}$/);
    const rows = rowsOf<{ token_hash: string }>(
      await h.db.execute(sql`SELECT token_hash FROM external_claims WHERE instance_id = ${id}`),
    );
    expect(rows.map((r) => r.token_hash)).toEqual([tokenHash(item.token)]);
    await resolveExternalTask(h.db, h.clock, item.token, { result: { n: 1 } }, "tester");
    await h.tick();
    expect((await h.get(id)).status).toBe("completed");
    const logs = await h.logs(id);
    expect(logs.find((l) => l.event === "external.resolved")?.actor, "the resolving actor is logged").toBe("tester");
  });

  it("a resolve that lands while a worker is raising the timeout wins: the stale advance is dropped", async () => {
    const id = await parked();
    const [item] = await claim({ claimMs: 120_000 });
    h.clock.advance(61_000);
    // The order is fixed, not raced: a worker claims the row past its deadline and computes the
    // timeout; its write is held until the resolve has landed, then sent.
    const worker = heldWrite(h, "worker-raising-timeout", id);
    const ticking = worker.engine.tick();
    await worker.computed;
    await resolveExternalTask(h.db, h.clock, item.token, { result: { n: 2 } }, null);
    worker.release();
    expect(await ticking, "the timeout's write is fenced out by the resolve").toBe(0);
    expect((await h.get(id)).status, "the resolve made the row due again").toBe("running");
    await h.tick();
    const view = await h.get(id);
    expect(view.status, "the answer wins, never the timeout").toBe("completed");
    expect(view.output).toEqual({ n: 2 });
    expect(view.errorCode).toBeNull();
    expect((await h.logs(id)).filter((l) => l.event === "instance.failed")).toEqual([]);
  });

  it("after the timeout routed, the claim renews as cancelled and a resolve is a late answer (409)", async () => {
    const id = await parked();
    const [item] = await claim();
    h.clock.advance(61_000);
    await h.tick();
    expect((await h.get(id)).status).toBe("failed");
    expect((await h.get(id)).errorCode).toBe("external.timeout");
    expect(await renewExternalTasks(h.db, h.clock, "w", [item.token], 30_000)).toEqual({
      renewed: [],
      lost: [],
      cancelled: [item.token],
    });
    expect((await refusal(resolveExternalTask(h.db, h.clock, item.token, { result: { n: 1 } }, null))).kind).toBe(
      "conflict",
    );
    expect(
      await releaseExternalTask(h.db, h.clock, item.token),
      "stop, then release: accepted, nothing back in the queue",
    ).toBe(false);
  });

  it("an operator retry re-arms a timed-out task with a new visit; the old token stays refused", async () => {
    const id = await parked();
    const [old] = await claim();
    h.clock.advance(61_000);
    await h.tick();
    await h.db.execute(
      sql`UPDATE instances SET status = 'running', wake_at = ${h.clock.now()}, task_epoch = task_epoch + 1 WHERE id = ${id}`,
    );
    await h.tick();
    const [fresh] = await claim();
    expect(fresh).toBeDefined();
    expect((await refusal(resolveExternalTask(h.db, h.clock, old.token, { result: { n: 1 } }, null))).kind).toBe(
      "conflict",
    );
    await resolveExternalTask(h.db, h.clock, fresh.token, { result: { n: 3 } }, null);
    await h.tick();
    expect((await h.get(id)).output).toEqual({ n: 3 });
  });

  it("a signal is validated against the task before it is buffered", async () => {
    const id = await h.start("ask");
    const bad = await refusal(signalExternalTask(h.db, h.clock, id, "q", { result: { n: "x" } }, null));
    expect(bad.kind).toBe("invalid");
    expect(bad.fields?.[0].path).toBe("result.n");
    expect(await signalExternalTask(h.db, h.clock, id, "q", { error: { code: "no" } }, null)).toEqual({
      delivered: false,
      buffered: true,
    });
    await h.tick();
    const view = await h.get(id);
    expect(view.status, "the buffered error outcome was consumed on arming and failed the task").toBe("failed");
    expect(view.errorCode).toBe("no");
    const left = rowsOf<{ n: number }>(
      await h.db.execute(sql`SELECT count(*)::int AS n FROM signals WHERE instance_id = ${id}`),
    );
    expect(Number(left[0].n), "the consumed signal is gone with the write").toBe(0);
  });

  // Audit, session 8 (docs/limits.md): a worker buffered 1,000 signals of 200 KB (191 MB) for one
  // instance whose task was not waiting; nothing bounded them.
  it("refuses a signal past the instance's bound of buffered signals with 409, keeping those buffered", async () => {
    const id = await h.start("ask");
    const guard = { maxBuffered: 3 };
    for (let n = 1; n <= 3; n++)
      expect(await signalExternalTask(h.db, h.clock, id, "q", { result: { n } }, null, guard)).toEqual({
        delivered: false,
        buffered: true,
      });
    const over = await refusal(signalExternalTask(h.db, h.clock, id, "q", { result: { n: 4 } }, null, guard));
    expect(over.kind).toBe("conflict");
    expect(over.message).toBe(
      `instance ${id} already holds 3 buffered signals, the most allowed (--limit-buffered-signals, docs/limits.md); nothing was buffered: signal again once its tasks have taken some`,
    );
    const kept = rowsOf<{ n: number }>(
      await h.db.execute(sql`SELECT count(*)::int AS n FROM signals WHERE instance_id = ${id}`),
    );
    expect(Number(kept[0].n)).toBe(3);
    await h.tick();
    expect((await h.get(id)).output, "the oldest buffered signal answered the task").toEqual({ n: 1 });
  });

  it.skipIf(!onPostgres)("two workers racing claims on PostgreSQL never share a task", async () => {
    await h.deploy({ name: "race", tasks: [{ id: "r", action: { type: "external" } }] });
    const ids: string[] = [];
    for (let i = 0; i < 30; i++) ids.push(await h.start("race"));
    while ((await h.tick()) > 0);
    const rounds = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        claimExternalTasks(h.db, h.clock, { workerId: `w${i % 2}`, limit: 4, claimMs: 30_000, process: "race" }),
      ),
    );
    const claimed = rounds.flat().map((item) => item.token);
    // SKIP LOCKED may leave a row to a later round: collect the rest one claim at a time.
    for (let more = await claim({ process: "race" }); more.length > 0; more = await claim({ process: "race" }))
      claimed.push(...more.map((m) => m.token));
    const instances = rows(
      await h.db.execute(
        sql`SELECT instance_id, count(*)::int AS n FROM external_claims WHERE instance_id = ANY(${`{${ids.join(",")}}`}::text[]) GROUP BY instance_id`,
      ),
    );
    expect(claimed.length, "every parked task was handed out exactly once").toBe(30);
    expect(
      instances.every((r) => Number(r.n) === 1),
      "no task was claimed twice",
    ).toBe(true);
  });
});
