import { createGate, json, startUpstream, type Upstream, until } from "@baton/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, openHarness } from "../support/engine-harness.js";

let h: Harness;
let up: Upstream;

beforeAll(async () => {
  h = await openHarness();
  up = await startUpstream();
});
afterAll(async () => {
  await up?.close();
  await h?.close();
});

/** Answers each path with the next status of its script (the last one repeats). */
function scripted(script: Record<string, number[]>) {
  const seen: Record<string, number> = {};
  up.handle((req, res) => {
    const path = req.path.split("?")[0];
    const statuses = script[path] ?? [200];
    const n = seen[path] ?? 0;
    seen[path] = n + 1;
    const status = statuses[Math.min(n, statuses.length - 1)];
    json(res, status, { attempt: n + 1, status });
  });
}

describe("on_error", () => {
  it("schedules retries on wake_at with backoff, counts them in retry_count and resets it on success", async () => {
    scripted({ "/flaky": [500, 502, 200] });
    const id = await h.deployAndStart({
      name: "flaky",
      tasks: [
        {
          id: "call",
          action: { type: "fetch", method: "get", url: `${up.url}/flaky` },
          on_error: [{ code: ["http.5%"], retry: { retries: 3, delay: "10s", factor: 2 } }],
        },
        { id: "done" },
      ],
    });
    // The wait is computed at the write, which happens between `before` and `after`: so
    // wakeAt - before >= the wait >= its lower bound, and wakeAt - after <= the wait <= its upper
    // bound, however slow the machine is.
    let before = h.clock.now();
    await h.tick();
    let view = await h.get(id);
    let after = h.clock.now();
    expect(view.status).toBe("running");
    expect(view.retryCount, "1 while the first retry waits").toBe(1);
    expect(view.wakeAt! - before, "first wait is jittered into [delay/2, delay]").toBeGreaterThanOrEqual(5_000);
    expect(view.wakeAt! - after).toBeLessThanOrEqual(10_000);
    expect(await h.tick(), "not due before the timer").toBe(0);
    before = h.clock.now() + 10_000;
    await h.tick(10_000);
    view = await h.get(id);
    after = h.clock.now();
    expect(view.retryCount).toBe(2);
    expect(view.wakeAt! - before).toBeGreaterThanOrEqual(10_000);
    expect(view.wakeAt! - after).toBeLessThanOrEqual(20_000);
    await h.tick(20_000);
    view = await h.get(id);
    expect(view.status, "the routing task after the action runs inline").toBe("completed");
    expect(view.retryCount, "reset on success").toBe(0);
    expect(view.state.outputs.call).toEqual({ attempt: 3, status: 200 });
    const retries = (await h.logs(id)).filter((l) => l.event === "task.retry_scheduled");
    expect(retries.map((l) => (l.data as any).attempt)).toEqual([1, 2]);
    expect(typeof (retries[0].data as any).wait_ms).toBe("number");
    const failures = (await h.logs(id)).filter((l) => l.event === "task.failed");
    expect(failures.map((l) => (l.data as any).code)).toEqual(["http.500", "http.502"]);
  });

  it("keeps the Idempotency-Key of a task visit across its retries", async () => {
    scripted({ "/idem": [500, 200] });
    await h.deploy({
      name: "idem",
      tasks: [
        { id: "call", action: { type: "fetch", url: `${up.url}/idem` }, on_error: [{ code: ["http.500"], retry: 1 }] },
      ],
    });
    const before = up.requests.length;
    const id = await h.start("idem");
    await h.runToEnd(id, 60_000);
    const keys = up.requests.slice(before).map((r) => r.headers["idempotency-key"]);
    expect(keys).toEqual([`${id}:1`, `${id}:1`]);
  });

  it('fails with `task "<id>": <code>: <detail>` once retries are exhausted', async () => {
    scripted({ "/down": [503] });
    const id = await h.deployAndStart({
      name: "down",
      tasks: [
        {
          id: "call",
          action: { type: "fetch", url: `${up.url}/down` },
          on_error: [{ code: ["http.503"], retry: { retries: 2, delay: "1s" } }],
        },
      ],
    });
    const view = await h.runToEnd(id, 60_000);
    expect(view.status).toBe("failed");
    expect(view.errorCode).toBe("http.503");
    expect(view.errorMessage).toMatch(/^task "call": http\.503: /);
    expect(view.retryCount).toBe(2);
  });

  it("routes through goto with the error root, which is gone after that task's next normal transition", async () => {
    scripted({ "/bad": [404] });
    const id = await h.deployAndStart({
      name: "recover",
      tasks: [
        {
          id: "call",
          action: { type: "fetch", url: `${up.url}/bad` },
          on_error: [{ code: ["http.4%"], goto: "$fallback" }],
          switch: "end",
        },
        { id: "fallback", output: { code: "$: error.code", task: "$: error.task", message: "$: error.message" } },
        { id: "after" },
      ],
    });
    await h.tick();
    const view = await h.get(id);
    expect(view.status, "routing tasks after the failed action run inline").toBe("completed");
    expect(view.state.outputs.fallback).toMatchObject({ code: "http.404", task: "call" });
    expect(view.state._error, "the error root is gone after the next normal transition").toBeUndefined();
  });

  it("ends raised or failed with the authored code and message from a raise or panic rule, after retries", async () => {
    scripted({ "/raise": [500], "/panic": [409] });
    await h.deploy({
      name: "rraise",
      tasks: [
        {
          id: "call",
          action: { type: "fetch", url: `${up.url}/raise` },
          on_error: [
            { code: ["http.500"], retry: 1, raise: { code: "upstream_down", message: "the upstream is down" } },
          ],
        },
      ],
    });
    await h.deploy({
      name: "rpanic",
      tasks: [
        {
          id: "call",
          action: { type: "fetch", url: `${up.url}/panic` },
          on_error: [{ panic: { code: "conflict_seen", message: "cannot continue" } }],
        },
      ],
    });
    const raised = await h.start("rraise");
    const panicked = await h.start("rpanic");
    expect(await h.runToEnd(raised, 60_000)).toMatchObject({
      status: "raised",
      errorCode: "upstream_down",
      errorMessage: "the upstream is down",
      retryCount: 1,
    });
    expect(await h.runToEnd(panicked, 60_000)).toMatchObject({
      status: "failed",
      errorCode: "conflict_seen",
      errorMessage: "cannot continue",
    });
  });

  it("never catches engine.* codes, even with a catch-all rule", async () => {
    await h.deploy({
      name: "enginefault",
      input_schema: { type: "object", properties: { n: { type: "integer" } }, required: ["n"] },
      tasks: [
        {
          id: "div",
          action: { type: "fetch", url: `${up.url}/ok` },
          output: "$: 10 / input.n",
          on_error: [{ goto: "$never" }],
        },
        { id: "never" },
      ],
    });
    scripted({});
    const id = await h.start("enginefault", { n: 0 });
    const view = await h.runToEnd(id);
    expect(view.status).toBe("failed");
    expect(view.errorCode).toBe("engine.expression");
  });

  it("retries pre.error on an only_once task but never http.timeout", async () => {
    const refused = await h.deployAndStart(
      {
        name: "once",
        input_schema: { type: "object", properties: { url: { type: "string" } }, required: ["url"] },
        tasks: [
          {
            id: "charge",
            only_once: true,
            action: { type: "fetch", url: "$: input.url", timeout: { for: "200ms" } },
            on_error: [
              { code: ["pre.%"], retry: 2 },
              { code: ["http.timeout"], goto: "$timed_out" },
            ],
          },
          { id: "timed_out", output: "$: error.code" },
        ],
      },
      { url: "http://127.0.0.1:1/charge" },
    );
    const view = await h.runToEnd(refused, 60_000);
    expect(view.status).toBe("failed");
    expect(view.errorCode).toBe("pre.error");
    expect(view.retryCount, "pre.* is retried on only_once: the call never left").toBe(2);
    up.handle(() => {
      /* hangs */
    });
    const slow = await h.start("once", { url: `${up.url}/slow` });
    const done = await h.runToEnd(slow, 60_000);
    expect(done.status).toBe("completed");
    expect(done.state.outputs.timed_out).toBe("http.timeout");
  });
});

describe("leases", () => {
  it("re-runs a reclaimed ordinary task and raises only_once.interrupted through on_error for an only_once task", async () => {
    const hang = new Set<string>();
    const gate = createGate();
    up.handle((req, res) => {
      if (hang.has(req.path)) return gate.hold(res); // never released: the first worker "dies" inside this call
      json(res, 200, { ok: true });
    });
    await h.deploy({
      name: "plain",
      tasks: [{ id: "call", action: { type: "fetch", url: `${up.url}/plain`, timeout: { for: "1m" } } }],
    });
    await h.deploy({
      name: "guarded",
      tasks: [
        {
          id: "charge",
          only_once: true,
          action: { type: "fetch", url: `${up.url}/guarded`, timeout: { for: "1m" } },
          on_error: [{ code: ["only_once.interrupted"], goto: "$check" }],
        },
        { id: "check", output: "$: error.code" },
      ],
    });
    hang.add("/plain");
    hang.add("/guarded");
    const plain = await h.start("plain");
    const guarded = await h.start("guarded");
    const dying = h.newEngine("worker-dying");
    const stuck = dying.tick();
    await until("both leases to be taken by worker-dying", async () =>
      (await h.get(plain)).leaseOwner === "worker-dying" && (await h.get(guarded)).leaseOwner === "worker-dying"
        ? true
        : undefined,
    );
    // Both calls must have reached the upstream (and hung there) before it answers again: a lease
    // is taken before the call leaves (the target's address is resolved first), so a slow machine
    // could otherwise send them after the hang is lifted and the first worker would just finish.
    await gate.whenParked(2);
    hang.clear();
    expect(await h.tick(), "a live lease is not claimable").toBe(0);
    h.clock.advance(11_000);
    expect(await h.tick()).toBe(2);
    const p = await h.get(plain);
    expect(p.status).toBe("completed");
    expect(p.previousOwner).toBe("worker-dying");
    const g = await h.get(guarded);
    expect(g.status).toBe("completed");
    expect(g.task).toBe("check");
    const guardedCalls = up.requests.filter((r) => r.path === "/guarded").length;
    expect(guardedCalls, "the only_once call was not repeated").toBe(1);
    expect((await h.logs(guarded)).map((l) => l.event)).toContain("lease.reclaimed");
    expect(g.state.outputs.check).toBe("only_once.interrupted");
    // The first worker never gets an answer; stopping it abandons its advances without a write.
    await dying.stop();
    expect(await stuck, "nothing of the dead worker's round landed").toBe(0);
    expect((await h.get(plain)).status).toBe("completed");
  });
});
