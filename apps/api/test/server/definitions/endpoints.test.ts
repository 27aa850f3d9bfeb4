import { client, startServer, type TestServer, databaseKind } from "@baton/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

let server: TestServer;
let api: ReturnType<typeof client>;

const orders = (suffix = "") => ({
  name: "orders",
  input_schema: { type: "object", properties: { id: { type: "string" } }, required: ["id"] },
  tasks: [
    {
      id: "charge",
      action: { type: "fetch", url: "http://127.0.0.1:9/charge", method: "POST", body: { order: "$: input.id" } },
      on_error: [{ code: ["http.5%"], retry: 2 }],
    },
    { id: "done", output: { note: `ok${suffix}` } },
  ],
});

beforeAll(async () => {
  server = await startServer();
  api = client(server.url);
});
afterAll(async () => {
  await server?.stop();
});

describe("PUT /api/definitions", () => {
  it("stores version 1 for a new name and reports saved", async () => {
    const res = await api.put("/api/definitions", orders());
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ name: "orders", saved: true, version: 1 });
  });

  it("does not store a new version when the canonical form equals the latest", async () => {
    // Same definition written with shorthands expanded differently must hash the same.
    const again = orders();
    (again.tasks[0] as any).action.method = "post";
    const res = await api.put("/api/definitions", again);
    expect(res.body, "re-deploying an unchanged definition must not create a version").toEqual({
      name: "orders",
      saved: false,
      version: 1,
    });
  });

  it("stores version 2 when the definition changes", async () => {
    const res = await api.put("/api/definitions", orders("2"));
    expect(res.body).toEqual({ name: "orders", saved: true, version: 2 });
  });

  it("refuses an unknown field with a 400 naming its path", async () => {
    const bad = orders();
    (bad.tasks[0] as any).on_error = [{ code: ["http.5%"], retires: 2 }];
    const res = await api.put("/api/definitions", bad);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("invalid");
    expect(res.body.error).toContain("tasks[0].on_error[0]");
    expect(res.body.error).toContain("retires");
    expect(res.body.fields.some((f: any) => f.path.includes("tasks[0].on_error[0]"))).toBe(true);
  });

  it("refuses a version field in the body (versions are assigned by the server)", async () => {
    const res = await api.put("/api/definitions", { ...orders(), version: 3 });
    expect(res.status).toBe(400);
    expect(res.body.error).toContain("version");
  });

  it("refuses malformed JSON with a 400, not a 500", async () => {
    const res = await api.put("/api/definitions", '{"name": "x", tasks: [}');
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("invalid");
    expect(res.body.error).toMatch(/not valid JSON/);
  });

  it("refuses a body that is not JSON by content type", async () => {
    const res = await api.put("/api/definitions", "name=x", { "content-type": "application/x-www-form-urlencoded" });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/content-type: application\/json/);
  });

  it("answers 413 with ApiCode invalid for a body over --max-body", async () => {
    const big = { ...orders(), tasks: [{ id: "a", output: { pad: "x".repeat(5 * 1024 * 1024) } }] };
    const res = await api.put("/api/definitions", big);
    expect(res.status).toBe(413);
    expect(res.body.code).toBe("invalid");
  });
});

describe("GET /api/definitions", () => {
  it("lists summaries newest first with the pagination envelope", async () => {
    const res = await api.get("/api/definitions");
    expect(res.status).toBe(200);
    expect(res.body.items.map((d: any) => `${d.name}@${d.version}`)).toEqual(["orders@2", "orders@1"]);
    expect(res.body.items[0].created_at).toMatch(/^\d{4}-\d\d-\d\dT.*Z$/);
    expect(res.body.page).toMatchObject({
      size: 20,
      items_before: 0,
      items_after: 0,
      sort: "created_at",
      order: "desc",
      next_cursor: null,
      previous_cursor: null,
    });
  });

  it("pages forward and back with cursors", async () => {
    for (let i = 0; i < 4; i++) await api.put("/api/definitions", { name: `page-${i}`, tasks: [{ id: "only" }] });
    const first = await api.get("/api/definitions?limit=2");
    expect(first.body.items).toHaveLength(2);
    expect(first.body.page.items_after).toBe(4);
    const second = await api.get(`/api/definitions?limit=2&after=${first.body.page.next_cursor}`);
    expect(second.body.page.items_before).toBe(2);
    expect(second.body.items.map((d: any) => d.name)).not.toContain(first.body.items[0].name);
    const back = await api.get(`/api/definitions?limit=2&before=${second.body.page.previous_cursor}`);
    expect(back.body.items, "paging back must return exactly the first page").toEqual(first.body.items);
  });

  it("filters by created_after (at or after) and created_before (strictly before)", async () => {
    const all = (await api.get("/api/definitions?limit=100")).body.items;
    const t = Date.parse(all[all.length - 1].created_at);
    const after = await api.get(`/api/definitions?created_after=${t}&limit=100`);
    expect(after.body.items).toHaveLength(all.length);
    const before = await api.get(`/api/definitions?created_before=${t}`);
    expect(before.body.items).toHaveLength(0);
  });

  it("clamps a limit over 100 to 100 and reports page.size 100", async () => {
    for (const limit of [101, 1000, 2 ** 31]) {
      const res = await api.get(`/api/definitions?limit=${limit}`);
      expect(res.status, String(limit)).toBe(200);
      expect(res.body.page.size, String(limit)).toBe(100);
    }
  });

  it("refuses a bad sort key, a foreign cursor, a cursor replayed with another order", async () => {
    expect((await api.get("/api/definitions?sort=colour")).status).toBe(400);
    expect((await api.get("/api/definitions?after=not-a-cursor")).status).toBe(400);
    const first = await api.get("/api/definitions?limit=1");
    const replay = await api.get(`/api/definitions?limit=1&order=asc&after=${first.body.page.next_cursor}`);
    expect(replay.status).toBe(400);
    expect(replay.body.error).toMatch(/order/);
    const channelCursor = (await api.get("/api/channels?limit=1")).body.page.next_cursor;
    if (channelCursor) expect((await api.get(`/api/definitions?after=${channelCursor}`)).status).toBe(400);
  });

  it("refuses an unknown query parameter", async () => {
    const res = await api.get("/api/definitions?colour=red");
    expect(res.status).toBe(400);
    expect(res.body.error).toContain("colour");
  });
});

describe("GET /api/definitions/{name}/versions/{version}", () => {
  it("returns the canonical stored form of a version, and the latest for version 0", async () => {
    const res = await api.get("/api/definitions/orders/versions/1");
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ name: "orders", version: 1 });
    expect(res.body.definition.tasks[0].action.method, "the canonical form stores methods lower case").toBe("post");
    expect(res.body.definition.tasks[0].on_error[0].retry.retries).toBe(2);
    expect((await api.get("/api/definitions/orders/versions/0")).body.version).toBe(2);
  });

  it("answers 404 for an unknown process or version and 400 for a non-numeric version", async () => {
    expect((await api.get("/api/definitions/orders/versions/99")).status).toBe(404);
    expect((await api.get("/api/definitions/ghost/versions/1")).status).toBe(404);
    const bad = await api.get("/api/definitions/orders/versions/latest");
    expect(bad.status).toBe(400);
    expect(bad.body.fields[0].path).toBe("path.version");
  });
});

describe("channels", () => {
  it("points a channel at a version and lists it", async () => {
    const set = await api.put("/api/channels", { name: "orders", channel: "staging", version: 2 });
    expect(set.status, set.text).toBe(200);
    expect(set.body).toEqual({ channel: "staging", name: "orders", version: 2 });
    const list = await api.get("/api/channels?name=orders");
    expect(list.body.items).toEqual([expect.objectContaining({ channel: "staging", name: "orders", version: 2 })]);
  });

  it("answers 404 for an unknown process or version", async () => {
    expect((await api.put("/api/channels", { name: "nope", channel: "staging", version: 1 })).status).toBe(404);
    const res = await api.put("/api/channels", { name: "orders", channel: "staging", version: 9 });
    expect(res.status).toBe(404);
    expect(res.body.error).toContain("version 9");
  });

  it("promotes every pointer from one channel to another and reports the previous version", async () => {
    await api.put("/api/channels", { name: "orders", channel: "production", version: 1 });
    const res = await api.post("/api/channels/promote", { from: "staging", to: "production" });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({
      from: "staging",
      to: "production",
      promoted: [{ name: "orders", version: 2, previous: 1 }],
    });
    const fresh = await api.post("/api/channels/promote", { from: "staging", to: "fresh-channel" });
    expect(fresh.body.promoted, "0 for none, as PUT /definitions/batch reports it").toEqual([
      { name: "orders", version: 2, previous: 0 },
    ]);
    expect((await api.post("/api/channels/promote", { from: "ghost", to: "production" })).status).toBe(404);
  });

  it("deletes a pointer and says whether one existed", async () => {
    await api.put("/api/channels", { name: "orders", channel: "tmp", version: 1 });
    expect((await api.delete("/api/channels", { name: "orders", channel: "tmp" })).body).toEqual({ deleted: true });
    expect((await api.delete("/api/channels", { name: "orders", channel: "tmp" })).body).toEqual({ deleted: false });
  });

  it("applies a batch atomically to the channel and returns previous versions", async () => {
    const res = await api.put("/api/definitions/batch", {
      channel: "staging",
      definitions: [orders("3"), { name: "refunds", tasks: [{ id: "r" }] }],
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual([
      { name: "orders", version: 3, saved: true, previous: 2 },
      { name: "refunds", version: 1, saved: true, previous: 0 },
    ]);
    const bad = await api.put("/api/definitions/batch", {
      channel: "staging",
      definitions: [orders("4"), { name: "broken", tasks: [] }],
    });
    expect(bad.status).toBe(400);
    const after = await api.get("/api/definitions?name=orders&limit=1");
    expect(after.body.items[0].version, "a refused batch must store nothing").toBe(3);
  });

  it("reports stale child references on a channel", async () => {
    await api.put("/api/definitions/batch", {
      channel: "kids",
      definitions: [
        { name: "child-p", tasks: [{ id: "c" }] },
        { name: "parent-p", tasks: [{ id: "spawn", action: { type: "child", name: "child-p" } }] },
      ],
    });
    expect((await api.post("/api/channels/status", { channel: "kids" })).body).toEqual({ items: [] });
    const v2 = await api.put("/api/definitions", { name: "child-p", tasks: [{ id: "c2" }] });
    await api.put("/api/channels", { name: "child-p", channel: "kids", version: v2.body.version });
    const status = await api.post("/api/channels/status", { channel: "kids" });
    expect(status.body.items).toEqual([
      { name: "parent-p", version: 1, task: "spawn", child: "child-p", pinned_version: 1, channel_version: 2 },
    ]);
    expect((await api.post("/api/channels/status", { channel: "nowhere" })).status).toBe(404);
  });
});

describe("validate", () => {
  it("returns per-process results with the version it would get and saves nothing", async () => {
    const res = await api.post("/api/definitions/validate", [orders("9")]);
    expect(res.status, res.text).toBe(200);
    expect(res.body[0]).toMatchObject({ process: "orders", version: 4 });
    expect(res.body[0].process_input).toMatchObject({ type: "object" });
    const list = await api.get("/api/definitions?name=orders&limit=1");
    expect(list.body.items[0].version, "validate must not save").toBe(3);
  });

  it("refuses an invalid definition naming the process and task", async () => {
    const res = await api.post("/api/definitions/validate", [{ name: "v", tasks: [{ id: "a", switch: "$missing" }] }]);
    expect(res.status).toBe(400);
    expect(res.body.error).toContain("missing");
  });
});

describe("service endpoints", () => {
  it("answers /healthz with the documented fields", async () => {
    const res = await api.get("/healthz");
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      status: "ok",
      database: databaseKind,
      manual_tick: false,
    });
    expect(typeof res.body.worker_id).toBe("string");
    expect(typeof res.body.lease_age_ms).toBe("number");
    const alias = await api.get("/api/healthz");
    expect(alias.status, "the /api alias a generated client calls").toBe(200);
    expect(Object.keys(alias.body).sort()).toEqual(Object.keys(res.body).sort());
  });

  it("serves the OpenAPI document and the docs explorer without CORS headers", async () => {
    const doc = await api.get("/public/openapi.json");
    expect(doc.status).toBe(200);
    expect(doc.body.openapi).toMatch(/^3\.1/);
    expect(doc.body.servers).toEqual([{ url: "/api" }]);
    expect(doc.headers.get("access-control-allow-origin")).toBeNull();
    const page = await api.get("/public/docs");
    expect(page.status).toBe(200);
    expect(page.text).toContain("swagger-ui-bundle.js");
    const slashed = await api.get("/public/docs/");
    expect(slashed.status, "the trailing slash serves the same page").toBe(200);
    expect(slashed.text).toBe(page.text);
    const asset = await api.get("/public/docs/assets/swagger-ui-bundle.js");
    expect(asset.status, "the explorer must be served from the installed package, not a CDN").toBe(200);
  });

  it("serves the per-process description with the input schema patched in", async () => {
    const res = await api.get("/api/definitions/orders/openapi.json");
    expect(res.status, res.text).toBe(200);
    expect(JSON.stringify(res.body)).toContain('"required":["id"]');
    expect((await api.get("/api/definitions/orders/docs")).text).toContain("/api/definitions/orders/openapi.json");
    expect((await api.get("/api/definitions/nope/openapi.json")).status).toBe(404);
  });

  it("answers an unknown path with a 404 error body", async () => {
    const res = await api.get("/api/nothing-here");
    expect(res.status).toBe(404);
    expect(res.body.code).toBe("not_found");
  });
});
