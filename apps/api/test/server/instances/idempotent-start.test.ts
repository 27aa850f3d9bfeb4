// Idempotent starts (docs/instances.md, "Idempotent starts"): POST /instances with an
// Idempotency-Key answers, for a retry with the same key and body, the instance the first
// request started, and starts nothing; the same key with another body is a 409.
import { randomUUID } from "node:crypto";
import { client, startServer, type TestServer } from "@baton/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

let server: TestServer;
let api: ReturnType<typeof client>;

const order = {
  name: "order",
  input_schema: { type: "object", properties: { id: { type: "string" }, qty: { type: "integer" } }, required: ["id"] },
  tasks: [{ id: "wait", action: { type: "delay", for: "1h" } }],
};

beforeAll(async () => {
  server = await startServer({ args: ["--poll", "0"] });
  api = client(server.url);
  expect((await api.put("/api/definitions", order)).status).toBe(200);
});
afterAll(async () => {
  await server?.stop();
});

async function instancesOf(id: string): Promise<number> {
  const res = await api.get(`/api/instances?process=order&limit=100`);
  expect(res.status, res.text).toBe(200);
  return (res.body.items as Array<{ id: string }>).filter((i) => i.id === id).length;
}

async function total(): Promise<number> {
  const res = await api.get(`/api/instances?process=order&limit=100`);
  return res.body.items.length + res.body.page.items_after;
}

const start = (body: unknown, key?: string) =>
  api.post("/api/instances", body, key === undefined ? {} : { "idempotency-key": key });

describe("POST /api/instances with Idempotency-Key", () => {
  it("a retry with the same key and body answers the same instance and starts nothing", async () => {
    const key = randomUUID();
    const before = await total();
    const first = await start({ process: "order", input: { id: "A-1", qty: 2 } }, key);
    expect(first.status, first.text).toBe(200);
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    // The same body with its keys in another order is the same request.
    const again = await start({ input: { qty: 2, id: "A-1" }, process: "order" }, key);
    expect(again.status, again.text).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(await total()).toBe(before + 1);
    expect(await instancesOf(first.body.id)).toBe(1);
  });

  it("the replay answers the instance's current status", async () => {
    const key = randomUUID();
    const first = await start({ process: "order", input: { id: "A-2" } }, key);
    expect((await api.post(`/api/instances/${first.body.id}/cancel`)).status).toBeLessThan(300);
    const again = await start({ process: "order", input: { id: "A-2" } }, key);
    expect(again.body).toMatchObject({ id: first.body.id, status: "cancelled" });
  });

  it("the same key with a different body is a 409 naming the instance it started", async () => {
    const key = randomUUID();
    const first = await start({ process: "order", input: { id: "A-3" } }, key);
    const other = await start({ process: "order", input: { id: "A-4" } }, key);
    expect(other.status, other.text).toBe(409);
    expect(other.body.code).toBe("conflict");
    expect(other.body.error).toContain(first.body.id);
    expect(other.body.error).toContain("Idempotency-Key");
  });

  it("concurrent requests with one key start exactly one instance", async () => {
    const key = randomUUID();
    const before = await total();
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => start({ process: "order", input: { id: "A-5" } }, key)),
    );
    for (const a of answers) expect(a.status, a.text).toBe(200);
    expect(new Set(answers.map((a) => a.body.id)).size).toBe(1);
    expect(await total()).toBe(before + 1);
  });

  it("without a key every request starts a new instance; different keys are different starts", async () => {
    const before = await total();
    const a = await start({ process: "order", input: { id: "A-6" } });
    const b = await start({ process: "order", input: { id: "A-6" } });
    const c = await start({ process: "order", input: { id: "A-6" } }, randomUUID());
    expect(new Set([a.body.id, b.body.id, c.body.id]).size).toBe(3);
    expect(await total()).toBe(before + 3);
  });

  it("a refused start stores no key: the corrected retry with the same key starts", async () => {
    const key = randomUUID();
    const bad = await start({ process: "order", input: { qty: 1 } }, key);
    expect(bad.status).toBe(400);
    const good = await start({ process: "order", input: { id: "A-7" } }, key);
    expect(good.status, good.text).toBe(200);
  });

  it("a retry answers its start even when a newer version would now refuse the same request", async () => {
    const loose = { ...order, name: "order_strict_later" };
    expect((await api.put("/api/definitions", loose)).status).toBe(200);
    const key = randomUUID();
    const body = { process: "order_strict_later", input: { id: "A-9" } };
    const first = await start(body, key);
    expect(first.status, first.text).toBe(200);
    const strict = {
      ...loose,
      input_schema: { ...loose.input_schema, required: ["id", "qty"] },
    };
    expect((await api.put("/api/definitions", strict)).status).toBe(200);
    expect((await start(body)).status, "the same request without its key is refused now").toBe(400);
    const again = await start(body, key);
    expect(again.status, again.text).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
  });

  it("a start whose input is stored as objects takes its key too", async () => {
    const key = randomUUID();
    const before = await total();
    // Past the default --object-threshold (2,048 bytes): the start takes its transaction path.
    const body = { process: "order", input: { id: "B".repeat(5000) } };
    const first = await start(body, key);
    expect(first.status, first.text).toBe(200);
    const again = await start(body, key);
    expect(again.status, again.text).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    const other = await start({ process: "order", input: { id: "C".repeat(5000) } }, key);
    expect(other.status, other.text).toBe(409);
    expect(await total()).toBe(before + 1);
  });

  it("a malformed key is a 400 naming the header", async () => {
    for (const key of ["has space", "x".repeat(256), "naïve"]) {
      const res = await start({ process: "order", input: { id: "A-8" } }, key);
      expect(res.status, key).toBe(400);
      expect(res.body.fields[0].path).toBe("header.idempotency-key");
    }
  });

  it("the OpenAPI description documents the header and the 409", async () => {
    const doc = (await api.get("/public/openapi.json")).body;
    const op = doc.paths["/instances"].post;
    const header = op.parameters.find((p: { in: string; name: string }) => p.in === "header");
    expect(header.name).toBe("Idempotency-Key");
    expect(op.responses["409"]).toBeDefined();
    expect(op.description).toMatch(/24 hours/);
  });

  // Last: it moves the server's clock a day on.
  it("a key past its 24 hours is taken over: the same request starts a new instance", async () => {
    const key = randomUUID();
    const body = { process: "order", input: { id: "A-10" } };
    const first = await start(body, key);
    expect(first.status, first.text).toBe(200);
    const tick = await api.post("/api/tick", { advance_ms: 24 * 60 * 60 * 1000 + 1000 });
    expect(tick.status, tick.text).toBe(200);
    const later = await start(body, key);
    expect(later.status, later.text).toBe(200);
    expect(later.headers.get("idempotent-replayed")).toBeNull();
    expect(later.body.id).not.toBe(first.body.id);
    const replay = await start(body, key);
    expect(replay.body.id, "the key now names the new start").toBe(later.body.id);
  });
});
