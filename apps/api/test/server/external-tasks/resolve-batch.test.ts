// POST /external-tasks/resolve-batch over HTTP (docs/api.md "Resolve-batch"): the body's
// bounds, and a mix of good, stale, foreign and invalid tokens answered one by one, each as a
// single resolve would answer it. Responses are checked against the OpenAPI document by testkit.
import { client, startServer, type TestServer } from "@baton/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

let server: TestServer;
let api: ReturnType<typeof client>;

const ask = {
  name: "batch_http",
  tasks: [
    {
      id: "ask",
      action: {
        type: "external",
        result_schema: { type: "object", properties: { n: { type: "integer" } }, required: ["n"] },
      },
      raises: { no: null },
      on_error: [{ code: "no", goto: "end" }],
    },
  ],
  output: { n: "$: outputs.ask == null ? 0 : outputs.ask.n" },
};

beforeAll(async () => {
  server = await startServer({ args: ["--poll", "0"] });
  api = client(server.url);
  const res = await api.put("/api/definitions", ask);
  expect(res.status, res.text).toBe(200);
}, 60_000);
afterAll(async () => {
  await server?.stop();
});

const tick = async () => {
  for (;;) {
    const res = await api.post("/api/tick", {});
    expect(res.status, res.text).toBe(200);
    if (res.body.count === 0) return;
  }
};

async function parkedAndClaimed(count: number): Promise<{ ids: string[]; tokens: string[] }> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const res = await api.post("/api/instances", { process: "batch_http" });
    expect(res.status, res.text).toBe(200);
    ids.push(res.body.id as string);
  }
  await tick();
  const claimed = await api.post("/api/external-tasks/claim", { worker_id: "w", process: "batch_http", limit: count });
  expect(claimed.status, claimed.text).toBe(200);
  expect(claimed.body.items).toHaveLength(count);
  // Claims are FIFO by park time; ids were parked in order, so tokens[i] is ids[i]'s.
  return { ids, tokens: claimed.body.items.map((item: { token: string }) => item.token) };
}

const batch = (items: unknown[]) => api.post("/api/external-tasks/resolve-batch", { items });

describe("POST /external-tasks/resolve-batch", () => {
  it("refuses a body without items, with more than 100, or with an item that is not a resolve body", async () => {
    const empty = await batch([]);
    expect(empty.status).toBe(400);
    expect(empty.body.code).toBe("invalid");
    const tooMany = await batch(Array.from({ length: 101 }, (_, i) => ({ token: `ext_${i}`, result: {} })));
    expect(tooMany.status).toBe(400);
    const both = await batch([{ token: "ext_x", result: { n: 1 }, error: { code: "no" } }]);
    expect(both.status).toBe(400);
    const unknownField = await batch([{ token: "ext_x", result: { n: 1 }, note: "hi" }]);
    expect(unknownField.status).toBe(400);
    const missing = await api.post("/api/external-tasks/resolve-batch", {});
    expect(missing.status).toBe(400);
    expect(JSON.stringify(missing.body)).toContain("items");
  });

  it("answers good, stale, foreign, invalid and repeated tokens each on its own, in order", async () => {
    const { ids, tokens } = await parkedAndClaimed(4);
    const [good, raised, stale, invalid] = tokens;
    const first = await batch([{ token: stale, result: { n: 7 } }]);
    expect(first.status, first.text).toBe(200);
    expect(first.body).toEqual({ items: [{ token: stale, resolved: true }] });

    const res = await batch([
      { token: good, result: { n: 1 } },
      { token: raised, error: { code: "no", message: "declined" } },
      { token: stale, result: { n: 2 } },
      { token: "ext_foreign_not_issued_here_000000", result: { n: 3 } },
      { token: invalid, result: { n: "four" } },
      { token: good, result: { n: 5 } },
    ]);
    expect(res.status, res.text).toBe(200);
    const items = res.body.items as Array<Record<string, unknown>>;
    expect(items.map((item) => [item.token, item.resolved, item.code ?? null])).toEqual([
      [good, true, null],
      [raised, true, null],
      [stale, false, "conflict"],
      ["ext_foreign_not_issued_here_000000", false, "not_found"],
      [invalid, false, "invalid"],
      [good, false, "conflict"],
    ]);
    expect(items[4].fields).toEqual([expect.objectContaining({ path: "result.n" })]);
    expect(items[3].error).toBe("unknown claim token");

    // The same tokens alone get the same answers from the single resolve.
    const single = await api.post("/api/external-tasks/resolve", { token: invalid, result: { n: "four" } });
    expect(single.status).toBe(400);
    expect(single.body.error).toBe(items[4].error);
    const singleStale = await api.post("/api/external-tasks/resolve", { token: stale, result: { n: 2 } });
    expect(singleStale.status).toBe(409);
    expect(singleStale.body.error).toBe(items[2].error);

    await tick();
    const views = await Promise.all(ids.map((id) => api.get(`/api/instances/${id}`)));
    expect(views.map((v) => v.body.status)).toEqual(["completed", "completed", "completed", "running"]);
    expect(views[0].body.output, "a repeated token resolved once, with its first outcome").toEqual({ n: 1 });
    expect(views[2].body.output).toEqual({ n: 7 });
    const logs = await api.get(`/api/instances/${ids[0]}/logs`);
    expect(logs.status, logs.text).toBe(200);
    expect(logs.body.items.filter((l: { event: string }) => l.event === "external.resolved")).toHaveLength(1);

    const again = await batch([{ token: invalid, result: { n: 4 } }]);
    expect(again.body.items).toEqual([{ token: invalid, resolved: true }]);
    await tick();
    expect((await api.get(`/api/instances/${ids[3]}`)).body.output).toEqual({ n: 4 });
  });

  it("refuses a token of a cancelled instance and lands the rest", async () => {
    const { ids, tokens } = await parkedAndClaimed(2);
    const cancelled = await api.post(`/api/instances/${ids[0]}/cancel`, {});
    expect(cancelled.status, cancelled.text).toBeLessThan(300);
    await tick();
    const res = await batch([
      { token: tokens[0], result: { n: 1 } },
      { token: tokens[1], result: { n: 2 } },
    ]);
    expect(res.body.items.map((item: { resolved: boolean; code?: string }) => item.code ?? "resolved")).toEqual([
      "conflict",
      "resolved",
    ]);
    await tick();
    expect((await api.get(`/api/instances/${ids[0]}`)).body.status).toBe("cancelled");
    expect((await api.get(`/api/instances/${ids[1]}`)).body.output).toEqual({ n: 2 });
  });
});
