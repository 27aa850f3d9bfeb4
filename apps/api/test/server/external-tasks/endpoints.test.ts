import { client, startServer, type TestServer } from "@baton/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { askUntilTwo } from "../../support/definitions.js";
import { deploy, start as startInstance } from "../../support/instances-fixtures.js";

let server: TestServer;
let api: ReturnType<typeof client>;

const approve = {
  name: "approval",
  input_schema: { type: "object", properties: { order: { type: "string" } }, required: ["order"] },
  tasks: [
    {
      id: "approve",
      action: {
        type: "external",
        input: { order: "$: input.order" },
        result_schema: { type: "object", properties: { approved: { type: "boolean" } }, required: ["approved"] },
      },
      raises: {
        rejected: { type: "object", properties: { reason: { type: "string" } }, required: ["reason"] },
        withdrawn: null,
      },
      on_error: [
        { code: "rejected", goto: "$declined" },
        { code: "withdrawn", raise: { code: "withdrawn", message: "the customer withdrew" } },
      ],
      switch: [{ case: "self.output.approved", goto: "end" }, { goto: "$declined" }],
    },
    {
      id: "declined",
      output: { reason: "$: error == null ? 'no' : error.data.reason" },
      switch: [{ raise: { code: "declined", message: "not approved" } }],
    },
  ],
  output: { approved: "$: outputs.approve.approved" },
};

const timed = {
  name: "timed",
  tasks: [
    {
      id: "wait",
      action: { type: "external", timeout: { for: "1m" } },
      on_error: [
        {
          code: "external.timeout",
          retry: { retries: 1, delay: "1s" },
          raise: { code: "too_slow", message: "nobody answered" },
        },
      ],
    },
  ],
};

const looped = { ...askUntilTwo("looped"), output: { last: "$: outputs.ask.n" } };

const delays = {
  name: "delays",
  input_schema: { type: "object", properties: { ms: { type: "integer" } }, required: ["ms"] },
  tasks: [
    { id: "pause", action: { type: "delay", for: "$: input.ms" } },
    { id: "after", action: { type: "delay", until: "2000-01-01T00:00:00Z" } },
  ],
  output: { done: true },
};

beforeAll(async () => {
  server = await startServer({ args: ["--poll", "0"] });
  api = client(server.url);
  for (const def of [approve, timed, looped, delays]) await deploy(api, def);
}, 60_000);
afterAll(async () => {
  await server?.stop();
});

const start = async (process: string, input: unknown = {}) => (await startInstance(api, { process, input })).id;

const tick = async (advance_ms?: number) =>
  (await api.post("/api/tick", advance_ms === undefined ? {} : { advance_ms })).body;
const get = async (id: string) => (await api.get(`/api/instances/${id}`)).body;
const detail = async (id: string) => (await api.get(`/api/instances/${id}/detail`)).body;

async function claim(body: Record<string, unknown> = {}) {
  const res = await api.post("/api/external-tasks/claim", { worker_id: "w1", ...body });
  expect(res.status, res.text).toBe(200);
  return res.body as { items: Array<Record<string, any>>; renew_before_ms: number };
}

/** Starts an approval and ticks it onto its external task. */
async function parked(order = "A-1"): Promise<string> {
  const id = await start("approval", { order });
  await tick();
  const view = await detail(id);
  expect(view.status).toBe("running");
  expect(view.phase, "a parked external task shows as phase external").toBe("external");
  return id;
}

async function drain(): Promise<void> {
  // Leave nothing claimable behind for the next test's FIFO expectations.
  for (;;) {
    const { items } = await claim({ limit: 100 });
    if (items.length === 0) return;
    for (const item of items) await api.post("/api/external-tasks/release", { token: item.token });
    for (const item of items) {
      const view = await api.get(`/api/instances?process=${item.process}&phase=external&limit=100`);
      for (const row of view.body.items) await api.post(`/api/instances/${row.id}/cancel`);
    }
  }
}

describe("external tasks over HTTP", () => {
  it("claim → renew → resolve completes the instance with the conformed result", async () => {
    const id = await parked("A-1");
    const listed = await api.get("/api/instances?phase=external&process=approval");
    expect(listed.body.items.map((i: any) => i.id)).toContain(id);
    const { items, renew_before_ms } = await claim({ process: "approval", lease_ms: 30_000 });
    expect(items).toHaveLength(1);
    const item = items[0];
    expect(item.token).toMatch(/^ext_/);
    expect(item).toMatchObject({
      process: "approval",
      version: 1,
      task: "approve",
      external_input: { order: "A-1" },
      claimed_by: "w1",
      deadline: null,
    });
    expect(item, "the claim names the task's instance and visit (extension)").toMatchObject({
      instance_id: id,
      root_id: id,
      key: null,
      task_epoch: (await detail(id)).task_epoch,
      attempt: 1,
    });
    expect(item.result_schema).toEqual(approve.tasks[0].action!.result_schema);
    expect(item.raises).toEqual(approve.tasks[0].raises);
    expect(renew_before_ms).toBe(10_000);
    expect((await claim({ process: "approval" })).items, "a live claim hides the task from other claims").toEqual([]);

    const renewed = await api.post("/api/external-tasks/renew", { worker_id: "w1", tokens: [item.token] });
    expect(renewed.body).toEqual({ renewed: [item.token], lost: [], cancelled: [], renew_before_ms: 10_000 });

    const resolved = await api.post("/api/external-tasks/resolve", { token: item.token, result: { approved: true } });
    expect(resolved.status, resolved.text).toBe(200);
    expect(resolved.body).toEqual({ resolved: true });
    expect((await detail(id)).phase).toBeNull();
    await tick();
    const done = await get(id);
    expect(done.status).toBe("completed");
    expect(done.output).toEqual({ approved: true });
    const again = await api.post("/api/external-tasks/resolve", { token: item.token, result: { approved: true } });
    expect(again.status, "a second answer to a finished visit").toBe(409);
  });

  it("a child's claim carries its tree's root and business key", async () => {
    await drain();
    await deploy(api, {
      name: "keyed_parent",
      tasks: [{ id: "spawn", action: { type: "child", name: "approval", input: { order: "K-1" } } }],
    });
    const root = (await startInstance(api, { process: "keyed_parent", input: {}, key: "order-4711" })).id;
    await tick();
    await tick();
    const [item] = (await claim({ process: "approval" })).items;
    expect(item.root_id).toBe(root);
    expect(item.instance_id).not.toBe(root);
    expect(item.key, "children have no key of their own: the root's is the tree's").toBe("order-4711");
    await api.post("/api/instances/" + root + "/cancel");
  });

  it("a result that does not match result_schema is a 400 with fields and the task stays claimable", async () => {
    const id = await parked("A-2");
    const [item] = (await claim({ process: "approval" })).items;
    const bad = await api.post("/api/external-tasks/resolve", { token: item.token, result: { approved: "yes" } });
    expect(bad.status).toBe(400);
    expect(bad.body.fields.map((f: any) => f.path)).toContain("result.approved");
    expect((await detail(id)).phase).toBe("external");
    await api.post("/api/external-tasks/release", { token: item.token });
    const [again] = (await claim({ process: "approval" })).items;
    expect(again?.external_input).toEqual({ order: "A-2" });
    await api.post("/api/external-tasks/resolve", { token: again.token, result: { approved: false } });
    await tick();
    expect((await get(id)).status, "approved false routes to declined, which raises").toBe("raised");
  });

  it("an error outcome routes through on_error: goto with error.data, raise", async () => {
    const a = await parked("A-3");
    const [first] = (await claim({ process: "approval" })).items;
    const rejected = await api.post("/api/external-tasks/resolve", {
      token: first.token,
      error: { code: "rejected", message: "too much", data: { reason: "budget" } },
    });
    expect(rejected.status, rejected.text).toBe(200);
    await tick();
    const viewA = await detail(a);
    expect(viewA.status).toBe("raised");
    expect(viewA.error_code).toBe("declined");
    expect(viewA.state.outputs.declined, "the goto target saw error.data").toEqual({ reason: "budget" });

    const b = await parked("A-4");
    const [second] = (await claim({ process: "approval" })).items;
    expect(
      (await api.post("/api/external-tasks/resolve", { token: second.token, error: { code: "withdrawn" } })).status,
    ).toBe(200);
    await tick();
    const viewB = await get(b);
    expect(viewB.status).toBe("raised");
    expect(viewB.error_code).toBe("withdrawn");
  });

  it("an undeclared error code or data for a null schema is a 400", async () => {
    const id = await parked("A-5");
    const [item] = (await claim({ process: "approval" })).items;
    const unknown = await api.post("/api/external-tasks/resolve", { token: item.token, error: { code: "exploded" } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.fields[0].path).toBe("error.code");
    const withData = await api.post("/api/external-tasks/resolve", {
      token: item.token,
      error: { code: "withdrawn", data: { x: 1 } },
    });
    expect(withData.status).toBe(400);
    expect(withData.body.fields[0].path).toBe("error.data");
    const both = await api.post("/api/external-tasks/resolve", {
      token: item.token,
      result: { approved: true },
      error: { code: "withdrawn" },
    });
    expect(both.status).toBe(400);
    expect((await detail(id)).phase).toBe("external");
    await api.post(`/api/instances/${id}/cancel`);
  });

  it("an unknown token: resolve 404, release 409, renew lost", async () => {
    expect((await api.post("/api/external-tasks/resolve", { token: "ext_nope", result: {} })).status).toBe(404);
    expect((await api.post("/api/external-tasks/release", { token: "ext_nope" })).status).toBe(409);
    const renewed = await api.post("/api/external-tasks/renew", { worker_id: "w1", tokens: ["ext_nope"] });
    expect(renewed.body).toMatchObject({ renewed: [], lost: ["ext_nope"], cancelled: [] });
    const empty = await api.post("/api/external-tasks/renew", { worker_id: "w1", tokens: [] });
    expect(empty.body).toEqual({ renewed: [], lost: [], cancelled: [], renew_before_ms: 10_000 });
  });

  it("a lapsed lease makes the task claimable again and the old token renews as lost", async () => {
    await drain();
    const id = await parked("A-6");
    const [old] = (await claim({ process: "approval", lease_ms: 1000 })).items;
    await tick(1500);
    const [fresh] = (await claim({ process: "approval", worker_id: "w2" })).items;
    expect(fresh?.external_input).toEqual({ order: "A-6" });
    expect(fresh.claimed_by).toBe("w2");
    const detail = await api.get(`/api/instances/${id}/detail`);
    expect(detail.body.external_claim_epoch, "each claim of the visit is a new external_claim_epoch").toBe(2);
    const renewed = await api.post("/api/external-tasks/renew", { worker_id: "w1", tokens: [old.token] });
    expect(renewed.body).toMatchObject({ renewed: [], lost: [old.token], cancelled: [] });
    expect(
      (await api.post("/api/external-tasks/resolve", { token: old.token, result: { approved: true } })).status,
      "the lapsed claim cannot resolve",
    ).toBe(409);
    expect((await api.post("/api/external-tasks/release", { token: old.token })).status).toBe(409);
    const byOther = await api.post("/api/external-tasks/renew", { worker_id: "w1", tokens: [fresh.token] });
    expect(byOther.body.lost, "a token renewed by a worker that does not hold it").toEqual([fresh.token]);
    await api.post("/api/external-tasks/resolve", { token: fresh.token, result: { approved: true } });
    await tick();
    expect((await get(id)).status).toBe("completed");
  });

  it("release puts the task back at once", async () => {
    await drain();
    const id = await parked("A-7");
    const [item] = (await claim({ process: "approval" })).items;
    const released = await api.post("/api/external-tasks/release", { token: item.token });
    expect(released.body).toEqual({ released: true });
    expect((await api.post("/api/external-tasks/release", { token: item.token })).status, "released twice").toBe(409);
    const [again] = (await claim({ process: "approval" })).items;
    expect(again?.external_input).toEqual({ order: "A-7" });
    await api.post(`/api/instances/${id}/cancel`);
  });

  it("claims are FIFO by park time, honour limit and filters, and never hand one task to two workers", async () => {
    await drain();
    const ids: string[] = [];
    for (const order of ["F-1", "F-2", "F-3"]) {
      ids.push(await start("approval", { order }));
      await tick(10);
    }
    expect((await claim({ process: "approval", task: "nope" })).items).toEqual([]);
    expect((await claim({ process: "approval", version: 2 })).items).toEqual([]);
    const [a, b] = await Promise.all([
      claim({ process: "approval", limit: 2 }),
      claim({ process: "approval", limit: 2, worker_id: "w2" }),
    ]);
    const orders = [...a.items, ...b.items].map((i) => i.external_input.order);
    expect(new Set(orders).size, "no task handed out twice").toBe(orders.length);
    expect(orders.sort()).toEqual(["F-1", "F-2", "F-3"]);
    // Two claims racing on PostgreSQL split the queue by who locks which row first
    // (SKIP LOCKED), so which one gets the oldest is not fixed; each answer is in park order.
    for (const items of [a.items, b.items]) {
      const got = items.map((i) => i.external_input.order);
      expect(got, "a claim lists its tasks oldest park first").toEqual([...got].sort());
    }
    for (const id of ids) await api.post(`/api/instances/${id}/cancel`);

    const queued: string[] = [];
    for (const order of ["G-1", "G-2", "G-3"]) {
      queued.push(await start("approval", { order }));
      await tick(10);
    }
    const oldest = await claim({ process: "approval", limit: 2 });
    expect(
      oldest.items.map((i) => i.external_input.order),
      "one claim at a time takes the oldest parks first",
    ).toEqual(["G-1", "G-2"]);
    expect((await claim({ process: "approval", limit: 2 })).items.map((i) => i.external_input.order)).toEqual(["G-3"]);
    for (const id of queued) await api.post(`/api/instances/${id}/cancel`);
  });

  it("cancel: renew answers cancelled and resolve 409", async () => {
    await drain();
    const id = await parked("A-8");
    const [item] = (await claim({ process: "approval" })).items;
    expect((await api.post(`/api/instances/${id}/cancel`)).status).toBe(200);
    const renewed = await api.post("/api/external-tasks/renew", { worker_id: "w1", tokens: [item.token] });
    expect(renewed.body).toMatchObject({ renewed: [], lost: [], cancelled: [item.token] });
    expect(
      (await api.post("/api/external-tasks/resolve", { token: item.token, result: { approved: true } })).status,
    ).toBe(409);
    const signal = await api.post("/api/external-tasks/signal", {
      instance_id: id,
      task: "approve",
      result: { approved: true },
    });
    expect(signal.status, "a settled instance never waits again").toBe(409);
  });

  it("pause keeps the claim valid; a resolve on a paused instance leaves it paused until resume", async () => {
    await drain();
    const id = await parked("A-9");
    const [item] = (await claim({ process: "approval" })).items;
    expect((await api.post(`/api/instances/${id}/pause`)).status).toBe(200);
    expect((await detail(id)).phase, "the phase survives a pause").toBe("external");
    const renewed = await api.post("/api/external-tasks/renew", { worker_id: "w1", tokens: [item.token] });
    expect(renewed.body.renewed).toEqual([item.token]);
    expect(
      (await api.post("/api/external-tasks/resolve", { token: item.token, result: { approved: true } })).status,
    ).toBe(200);
    await tick();
    expect((await get(id)).status).toBe("paused");
    await api.post(`/api/instances/${id}/resume`);
    await tick();
    expect((await get(id)).status).toBe("completed");
  });

  it("signal: delivered when armed (a held claim then renews as cancelled), 404 for unknown instance or task", async () => {
    await drain();
    const id = await parked("S-1");
    const [item] = (await claim({ process: "approval" })).items;
    const signal = await api.post("/api/external-tasks/signal", {
      instance_id: id,
      task: "approve",
      result: { approved: true },
    });
    expect(signal.status, signal.text).toBe(200);
    expect(signal.body).toEqual({ delivered: true, buffered: false });
    const renewed = await api.post("/api/external-tasks/renew", { worker_id: "w1", tokens: [item.token] });
    expect(renewed.body.cancelled).toEqual([item.token]);
    expect(
      (await api.post("/api/external-tasks/resolve", { token: item.token, result: { approved: true } })).status,
      "a late answer",
    ).toBe(409);
    await tick();
    expect((await get(id)).status).toBe("completed");
    expect(
      (
        await api.post("/api/external-tasks/signal", {
          instance_id: "019a3c1e-7c2b-7d10-8f00-4b6e2a9d1c55",
          task: "approve",
          result: {},
        })
      ).status,
    ).toBe(404);
    const other = await start("approval", { order: "S-2" });
    expect(
      (await api.post("/api/external-tasks/signal", { instance_id: other, task: "nope", result: {} })).status,
    ).toBe(404);
    expect(
      (await api.post("/api/external-tasks/signal", { instance_id: other, task: "declined", result: {} })).status,
      "not an external task",
    ).toBe(404);
    const bad = await api.post("/api/external-tasks/signal", {
      instance_id: other,
      task: "approve",
      result: { approved: 3 },
    });
    expect(bad.status).toBe(400);
    await api.post(`/api/instances/${other}/cancel`);
  });

  it("signals sent before the task arms are buffered and consumed FIFO, one per visit", async () => {
    const id = await start("looped");
    for (const n of [1, 2]) {
      const res = await api.post("/api/external-tasks/signal", { instance_id: id, task: "ask", result: { n } });
      expect(res.body).toEqual({ delivered: false, buffered: true });
    }
    await tick();
    await tick();
    await tick();
    const view = await get(id);
    expect(view.status).toBe("completed");
    expect(view.output, "the second signal answered the second visit").toEqual({ last: 2 });
  });

  it("signal with only_if_waiting: 409 naming where the instance is and nothing kept when the task is not waiting; delivered when it is", async () => {
    const signal = (id: string, n: number) =>
      api.post("/api/external-tasks/signal", { instance_id: id, task: "ask", result: { n }, only_if_waiting: true });
    const expectRefused = (res: Awaited<ReturnType<typeof signal>>, id: string, where: string) => {
      expect(res.status, res.text).toBe(409);
      expect(res.body.code).toBe("conflict");
      expect(res.body.error).toBe(
        `task "ask" of instance ${id} is not waiting now (the instance is ${where}); with only_if_waiting nothing was delivered or kept for a later visit`,
      );
    };
    const id = await start("looped");
    // Not parked yet (no tick has run it): a plain signal would be buffered for the visit to come.
    expectRefused(await signal(id, 7), id, 'running at task "ask"');
    await tick();
    expect((await detail(id)).phase, "nothing was buffered: the first visit waits").toBe("external");

    // Someone else answers first; the same visit no longer waits when the second answer arrives.
    expect((await signal(id, 1)).body).toEqual({ delivered: true, buffered: false });
    const late = await signal(id, 9);
    expect(late.status, late.text).toBe(409);
    expect(late.body.error).toContain(`task "ask" of instance ${id} is not waiting now`);
    await tick();
    await tick();
    const second = await detail(id);
    expect([second.task, second.phase], "the loop's second visit waits, without the late answer").toEqual([
      "ask",
      "external",
    ]);
    const logs = (await api.get(`/api/instances/${id}/logs?limit=100`)).body.items;
    expect(logs.filter((l: { event: string }) => l.event === "external.buffered")).toEqual([]);

    expect((await signal(id, 2)).body).toEqual({ delivered: true, buffered: false });
    await tick();
    await tick();
    const done = await get(id);
    expect([done.status, done.output]).toEqual(["completed", { last: 2 }]);
    const settled = await signal(id, 3);
    expect(settled.status).toBe(409);
    expect(settled.body.error).toBe(`instance ${id} is completed and will never wait on task "ask" again`);
  });

  it("signal with task_epoch answers only the visit it names: a new visit of the same task that started since the list was read gets nothing", async () => {
    const id = await start("looped");
    const early = await api.post("/api/external-tasks/signal", {
      instance_id: id,
      task: "ask",
      result: { n: 1 },
      task_epoch: 1,
    });
    expect(early.status, early.text).toBe(409);
    expect(early.body.error).toBe(
      `task "ask" of instance ${id} is not waiting now (the instance is running at task "ask"); with task_epoch 1 nothing was delivered or kept for a later visit`,
    );
    await tick();
    const listed = async () => (await api.get(`/api/external-tasks?instance_id=${id}`)).body.items;
    const [first] = await listed();
    expect([first.task, first.task_epoch]).toEqual(["ask", (await detail(id)).task_epoch]);

    // Between a person reading the list and sending, a colleague answers and the loop re-arms "ask".
    expect(
      (await api.post("/api/external-tasks/signal", { instance_id: id, task: "ask", result: { n: 1 } })).body,
    ).toEqual({
      delivered: true,
      buffered: false,
    });
    await tick();
    await tick();
    const [second] = await listed();
    expect(second.task, "the same task waits again, in a new visit").toBe("ask");
    expect(second.task_epoch).toBeGreaterThan(first.task_epoch);

    const stale = await api.post("/api/external-tasks/signal", {
      instance_id: id,
      task: "ask",
      result: { n: 5 },
      task_epoch: first.task_epoch,
      only_if_waiting: true,
    });
    expect(stale.status, stale.text).toBe(409);
    expect(stale.body.code).toBe("conflict");
    expect(stale.body.error).toBe(
      `task "ask" of instance ${id} waits in another visit (task_epoch ${second.task_epoch}) than the one this signal answers (task_epoch ${first.task_epoch}); nothing was delivered or kept for a later visit`,
    );
    expect(await listed(), "the new visit still waits, untouched").toEqual([second]);
    const logs = (await api.get(`/api/instances/${id}/logs?limit=100`)).body.items;
    expect(logs.filter((l: { event: string }) => l.event === "external.buffered")).toEqual([]);

    const contradictory = await api.post("/api/external-tasks/signal", {
      instance_id: id,
      task: "ask",
      result: { n: 2 },
      task_epoch: second.task_epoch,
      only_if_waiting: false,
    });
    expect(contradictory.status, contradictory.text).toBe(400);
    expect(contradictory.body.fields).toEqual([
      { path: "only_if_waiting", message: "must be true or absent when task_epoch is given" },
    ]);

    const right = await api.post("/api/external-tasks/signal", {
      instance_id: id,
      task: "ask",
      result: { n: 2 },
      task_epoch: second.task_epoch,
    });
    expect(right.body).toEqual({ delivered: true, buffered: false });
    await tick();
    await tick();
    expect((await get(id)).output).toEqual({ last: 2 });

    // Not waiting at all: the refusal names the option that asked for it.
    const after = await api.post("/api/external-tasks/signal", {
      instance_id: id,
      task: "ask",
      result: { n: 3 },
      task_epoch: second.task_epoch,
    });
    expect(after.status).toBe(409);
    expect(after.body.error).toBe(`instance ${id} is completed and will never wait on task "ask" again`);
  });

  it("external.timeout: the deadline raises through on_error; retry re-arms the wait", async () => {
    await drain();
    const id = await start("timed");
    await tick();
    const [item] = (await claim({ process: "timed" })).items;
    expect(item.deadline).not.toBeNull();
    expect(Date.parse(item.deadline) - Date.parse(item.waiting_since)).toBe(60_000);
    await api.post("/api/external-tasks/release", { token: item.token });
    await tick(61_000);
    const retrying = await get(id);
    expect(retrying.status).toBe("running");
    expect(retrying.retry_count).toBe(1);
    expect((await claim({ process: "timed" })).items, "no claim while the retry waits").toEqual([]);
    await tick(2_000);
    expect((await detail(id)).phase, "the retry re-armed the wait").toBe("external");
    const [rearmed] = (await claim({ process: "timed" })).items;
    expect(rearmed).toBeDefined();
    expect(rearmed.attempt, "the re-armed wait is the visit's second attempt").toBe(2);
    expect(rearmed.task_epoch, "one visit: the same idempotency key").toBe(item.task_epoch);
    expect(item.attempt).toBe(1);
    await tick(61_000);
    const view = await get(id);
    expect(view.status).toBe("raised");
    expect(view.error_code).toBe("too_slow");
    const renewed = await api.post("/api/external-tasks/renew", { worker_id: "w1", tokens: [rearmed.token] });
    expect(renewed.body.cancelled).toEqual([rearmed.token]);
  });

  it("delay: for (an expression of ms) parks until due; an until in the past moves on at once", async () => {
    const id = await start("delays", { ms: 5000 });
    await tick();
    const parkedView = await detail(id);
    expect(parkedView.status).toBe("running");
    expect(parkedView.task).toBe("pause");
    expect(parkedView.phase).toBeNull();
    expect(await tick(), "nothing is due before the delay ends").toEqual({ count: 0 });
    expect((await get(id)).status).toBe("running");
    await tick(5000);
    await tick();
    const done = await get(id);
    expect(done.status).toBe("completed");
    expect(done.output).toEqual({ done: true });
  });

  it("delay until an RFC 3339 instant parks until then", async () => {
    const at = new Date(Date.now() + 3_600_000).toISOString();
    expect(
      (
        await api.put("/api/definitions", {
          name: "delayed_until",
          tasks: [{ id: "wait", action: { type: "delay", until: at } }],
        })
      ).status,
    ).toBe(200);
    const id = await start("delayed_until");
    await tick();
    expect((await get(id)).status).toBe("running");
    await tick(1_800_000);
    expect((await get(id)).status, "half way there").toBe("running");
    await tick(1_900_000);
    expect((await get(id)).status).toBe("completed");
  });
});
