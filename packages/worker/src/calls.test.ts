import { describe, expect, it } from "vitest";
import { workerCalls } from "./calls.js";

/** A fetch that answers claim calls with `answer(body)` and records the bodies. */
function claimServer(answer: (body: any) => { status: number; body: unknown }) {
  const bodies: any[] = [];
  const fetchImpl: typeof fetch = async (_url, init) => {
    const body = JSON.parse(String(init?.body));
    bodies.push(body);
    const { status, body: out } = answer(body);
    return new Response(JSON.stringify(out), { status, headers: { "content-type": "application/json" } });
  };
  return { fetch: fetchImpl, bodies };
}

const settings = (fetchImpl: typeof fetch) => ({
  server: "http://baton.test",
  fetch: fetchImpl,
  workerId: "w1",
  callTimeoutMs: 1000,
});

describe("claim long-poll", () => {
  it("sends wait_ms to a server that takes it, and keeps sending it", async () => {
    const server = claimServer(() => ({ status: 200, body: { items: [], renew_before_ms: 10_000 } }));
    const calls = workerCalls(settings(server.fetch));
    expect((await calls.claim(2, { process: "orders" }, 5000)).waited).toBe(true);
    await calls.claim(2, {}, 5000);
    expect(server.bodies).toEqual([
      { worker_id: "w1", limit: 2, process: "orders", wait_ms: 5000 },
      { worker_id: "w1", limit: 2, wait_ms: 5000 },
    ]);
    expect(calls.longPolls).toBe(true);
  });

  it("falls back to polling, for good, when the server's claim body refuses wait_ms", async () => {
    const server = claimServer((body) =>
      "wait_ms" in body
        ? {
            status: 400,
            body: { code: "invalid", error: "bad body", fields: [{ path: "wait_ms", message: "unknown field" }] },
          }
        : { status: 200, body: { items: [], renew_before_ms: 10_000 } },
    );
    const calls = workerCalls(settings(server.fetch));
    expect((await calls.claim(1, {}, 5000)).waited).toBe(false);
    expect((await calls.claim(1, {}, 5000)).waited).toBe(false);
    expect(server.bodies.map((body) => "wait_ms" in body)).toEqual([true, false, false]);
    expect(calls.longPolls).toBe(false);
  });

  it("does not mistake another 400 for a missing long-poll", async () => {
    const server = claimServer(() => ({
      status: 400,
      body: { code: "invalid", error: "bad body", fields: [{ path: "process", message: "not a process name" }] },
    }));
    const calls = workerCalls(settings(server.fetch));
    await expect(calls.claim(1, { process: "Bad Name" }, 5000)).rejects.toMatchObject({ status: 400 });
    expect(server.bodies).toHaveLength(1);
  });
});
