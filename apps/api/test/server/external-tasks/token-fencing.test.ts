// A claim token is bound to the visit and the arming it was issued for (docs/engine.md,
// "External tasks and delay"): after a timeout, a retry that re-arms the task, a loop that
// re-visits it, a cancel or a lapse, the old token renews as lost or cancelled and can neither
// resolve nor release the arming someone else holds. A token whose task is no longer wanted
// (cancelled, moved on) may still be released: 200 with `released: false`.
import { client, startServer, type TestServer } from "@baton/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { askUntilTwo } from "../../support/definitions.js";
import { deploy, start as startInstance } from "../../support/instances-fixtures.js";

let server: TestServer;
let api: ReturnType<typeof client>;

const retried = {
  name: "fence_retried",
  tasks: [
    {
      id: "wait",
      action: { type: "external", timeout: { for: "1m" } },
      on_error: [{ code: "external.timeout", retry: { retries: 1, delay: "1s" } }],
    },
  ],
  output: { done: true },
};

const timedOut = {
  name: "fence_timed_out",
  tasks: [
    {
      id: "wait",
      action: { type: "external", timeout: { for: "1m" } },
      on_error: [{ code: "external.timeout", goto: "$after" }],
    },
    { id: "after", action: { type: "external" } },
  ],
};

const looped = askUntilTwo("fence_looped");

const held = { name: "fence_held", tasks: [{ id: "wait", action: { type: "external" } }], output: { done: true } };

beforeAll(async () => {
  server = await startServer({ args: ["--poll", "0"] });
  api = client(server.url);
  for (const def of [retried, timedOut, looped, held]) await deploy(api, def);
}, 60_000);
afterAll(async () => {
  await server?.stop();
});

const tick = async (advance_ms?: number) => api.post("/api/tick", advance_ms === undefined ? {} : { advance_ms });

/** Starts `process` and ticks once, so its external task is armed. */
async function start(process: string): Promise<string> {
  const { id } = await startInstance(api, { process });
  await tick();
  return id;
}

async function claimOne(worker: string, process: string): Promise<string> {
  const res = await api.post("/api/external-tasks/claim", { worker_id: worker, process, limit: 1 });
  expect(res.status, res.text).toBe(200);
  expect(res.body.items, `${worker} claims the armed task of ${process}`).toHaveLength(1);
  return res.body.items[0].token as string;
}

const renew = async (worker: string, token: string) =>
  (await api.post("/api/external-tasks/renew", { worker_id: worker, tokens: [token] })).body;
const resolve = (token: string, result: unknown = {}) => api.post("/api/external-tasks/resolve", { token, result });
const release = (token: string) => api.post("/api/external-tasks/release", { token });
const detail = async (id: string) => (await api.get(`/api/instances/${id}/detail`)).body;

describe("claim tokens fenced by visit and arming", () => {
  it("after a timeout whose retry re-armed the task: the old token renews cancelled, cannot resolve, and its release touches nothing; the new holder's work counts", async () => {
    const id = await start("fence_retried");
    const a = await claimOne("worker-a", "fence_retried");
    await tick(61_000); // the timeout routes to its retry (delay 1 s)
    await tick(2_000); // the retry re-arms the same task
    expect((await detail(id)).phase).toBe("external");
    const b = await claimOne("worker-b", "fence_retried");

    expect((await renew("worker-a", a)).cancelled, "that arming is no longer wanted").toEqual([a]);
    expect((await resolve(a)).status, "the old token cannot complete B's arming").toBe(409);
    expect((await release(a)).body, "stop, then release: accepted, nothing handed back").toEqual({ released: false });

    expect((await renew("worker-b", b)).renewed).toEqual([b]);
    expect((await resolve(b)).status).toBe(200);
    await tick();
    expect((await detail(id)).status).toBe("completed");
  });

  it("after a re-arm nobody claimed yet: the old token cannot resolve the fresh arming, which stays claimable", async () => {
    const id = await start("fence_retried");
    const a = await claimOne("worker-a", "fence_retried");
    await tick(61_000);
    await tick(2_000);
    expect((await renew("worker-a", a)).cancelled).toEqual([a]);
    expect((await resolve(a)).status).toBe(409);
    expect((await release(a)).body).toEqual({ released: false });
    const b = await claimOne("worker-b", "fence_retried");
    expect((await resolve(b)).status).toBe(200);
    await tick();
    expect((await detail(id)).status).toBe("completed");
  });

  it("after a timeout that moved on: the old token renews cancelled, resolve 409, release 200 released false", async () => {
    const id = await start("fence_timed_out");
    const a = await claimOne("worker-a", "fence_timed_out");
    await tick(61_000);
    await tick();
    const view = await detail(id);
    expect([view.task, view.phase]).toEqual(["after", "external"]);
    expect((await renew("worker-a", a)).cancelled).toEqual([a]);
    expect((await resolve(a)).status).toBe(409);
    const released = await release(a);
    expect(released.status, released.text).toBe(200);
    expect(released.body).toEqual({ released: false });
    // The next task's arming was not touched by that release or resolve.
    const b = await claimOne("worker-b", "fence_timed_out");
    expect((await renew("worker-b", b)).renewed).toEqual([b]);
    await release(b);
  });

  it("after a loop re-visited the task: the first visit's token renews cancelled and cannot resolve the second visit", async () => {
    const id = await start("fence_looped");
    const first = await claimOne("worker-a", "fence_looped");
    expect((await resolve(first, { n: 1 })).status).toBe(200);
    for (let i = 0; i < 3; i++) await tick(); // ask → more → ask again
    expect((await detail(id)).task).toBe("ask");
    const second = await claimOne("worker-b", "fence_looped");
    expect((await renew("worker-a", first)).cancelled).toEqual([first]);
    expect((await resolve(first, { n: 5 })).status).toBe(409);
    expect((await release(first)).body).toEqual({ released: false });
    expect((await renew("worker-b", second)).renewed).toEqual([second]);
    expect((await resolve(second, { n: 2 })).status).toBe(200);
  });

  it("after a cancel: renew cancelled, resolve 409, release 200 released false", async () => {
    const id = await start("fence_held");
    const a = await claimOne("worker-a", "fence_held");
    expect((await api.post(`/api/instances/${id}/cancel`)).status).toBeLessThan(300);
    expect((await renew("worker-a", a)).cancelled).toEqual([a]);
    expect((await resolve(a)).status).toBe(409);
    const released = await release(a);
    expect(released.status, released.text).toBe(200);
    expect(released.body).toEqual({ released: false });
  });

  it("after a lapse and a claim by another worker: lost, resolve and release 409", async () => {
    await start("fence_held");
    const a = await claimOne("worker-a", "fence_held");
    await tick(31_000); // past the claim's 30 s default lease
    const b = await claimOne("worker-b", "fence_held");
    expect((await renew("worker-a", a)).lost).toEqual([a]);
    expect((await resolve(a)).status).toBe(409);
    expect((await release(a)).status).toBe(409);
    expect((await renew("worker-b", b)).renewed).toEqual([b]);
    expect((await release(b)).body, "the holder's own release").toEqual({ released: true });
  });

  it("a token that was never issued: release 409", async () => {
    expect((await release("ext_never_issued")).status).toBe(409);
  });
});
