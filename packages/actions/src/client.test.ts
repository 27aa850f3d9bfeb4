import { once } from "node:events";
import { type IncomingMessage, type Server, type ServerResponse, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { LosslessNumber, isLosslessNumber } from "@baton/expr";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ApiError, ConnectionError } from "./client-errors.js";
import { actionUrl, createClient } from "./client.js";
import { listAll } from "./list-all.js";
import { findAction } from "./registry.js";

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: string;
}

type Reply = { status: number; body?: string; contentType?: string };

let server: Server;
let baseUrl: string;
let seen: Seen[] = [];
let reply: (req: Seen) => Reply = () => ({ status: 200, body: "{}" });

function json(status: number, body: string): Reply {
  return { status, body, contentType: "application/json" };
}

beforeAll(async () => {
  server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => (body += chunk));
    req.on("end", () => {
      const request = { method: req.method ?? "", url: req.url ?? "", headers: req.headers, body };
      seen.push(request);
      const answer = reply(request);
      res.statusCode = answer.status;
      if (answer.contentType) res.setHeader("content-type", answer.contentType);
      res.end(answer.body ?? "");
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.close();
  await once(server, "close");
});

beforeEach(() => {
  seen = [];
  reply = () => json(200, "{}");
});

describe("createClient", () => {
  it("substitutes and encodes path parameters under /api", async () => {
    reply = () => json(200, '{"id":"a b/c"}');
    const client = createClient({ server: `${baseUrl}/` });
    const data = await client.call("getInstance", { params: { id: "a b/c" } });
    expect(seen[0].method).toBe("GET");
    expect(seen[0].url, "a slash in an id must not create a path segment").toBe("/api/instances/a%20b%2Fc");
    expect(data.id).toBe("a b/c");
  });

  it("serializes query values: booleans as true/false, numbers as digits, undefined dropped", async () => {
    reply = () =>
      json(
        200,
        '{"items":[],"page":{"size":5,"items_before":0,"items_after":0,"sort":"created_at","order":"desc","next_cursor":null,"previous_cursor":null}}',
      );
    const client = createClient({ server: baseUrl });
    await client.call("listInstances", {
      query: { status: "failed,raised", children: true, flat: undefined, limit: 5, process: undefined } as never,
    });
    expect(seen[0].url).toBe("/api/instances?status=failed%2Craised&children=true&limit=5");
    await client.call("getInstanceDetail", { params: { id: "i1" }, query: { resolve: false } });
    expect(seen[1].url).toBe("/api/instances/i1/detail?resolve=false");
  });

  it("joins array query values with commas", () => {
    const spec = { ...findAction("listInstances"), name: "x" };
    expect(actionUrl("http://h", spec, { query: { status: ["failed", "raised"], after: "c/1" } })).toBe(
      "http://h/api/instances?status=failed%2Craised&after=c%2F1",
    );
  });

  it("sends a JSON body with its content type, the bearer token and the user agent", async () => {
    reply = () => json(200, '{"channel":"prod","name":"p","version":3}');
    const client = createClient({ server: baseUrl, token: "svc_sk_secret", userAgent: "baton-cli/1.2.3" });
    const data = await client.call("setChannel", { body: { name: "p", channel: "prod", version: 3 } });
    expect(seen[0]).toMatchObject({ method: "PUT", url: "/api/channels" });
    expect(seen[0].headers["content-type"]).toBe("application/json");
    expect(seen[0].headers.authorization).toBe("Bearer svc_sk_secret");
    expect(seen[0].headers["user-agent"]).toBe("baton-cli/1.2.3");
    expect(JSON.parse(seen[0].body)).toEqual({ name: "p", channel: "prod", version: 3 });
    expect(data).toEqual({ channel: "prod", name: "p", version: 3 });
  });

  it("sends no Authorization header without a token, and no body or content type on a GET", async () => {
    await createClient({ server: baseUrl }).call("listTokens");
    expect(seen[0].headers.authorization).toBeUndefined();
    expect(seen[0].headers["content-type"]).toBeUndefined();
    expect(seen[0].body).toBe("");
  });

  it("calls /healthz at the server root, not under /api", async () => {
    reply = () => json(200, '{"status":"ok","worker_id":"w","database":"pglite","lease_age_ms":3,"manual_tick":true}');
    const health = await createClient({ server: baseUrl }).call("health");
    expect(seen[0].url).toBe("/healthz");
    expect(health.database).toBe("pglite");
  });

  it("keeps big numbers and long decimals exact in both directions", async () => {
    reply = () =>
      json(
        200,
        '{"id":"i","process":"p","version":1,"status":"completed","task":"a","retry_count":0,"output":{"n":12345678901234567890,"d":0.1000000000000000000001},"created_at":"x","updated_at":"x"}',
      );
    const client = createClient({ server: baseUrl });
    await client.call("startInstance", {
      body: { process: "p", input: { n: new LosslessNumber("98765432109876543210") } },
    });
    expect(seen[0].body).toBe('{"process":"p","input":{"n":98765432109876543210}}');
    const view = await client.call("getInstance", { params: { id: "i" } });
    const output = view.output as Record<string, unknown>;
    expect(isLosslessNumber(output.n)).toBe(true);
    expect((output.n as LosslessNumber).value).toBe("12345678901234567890");
    expect((output.d as LosslessNumber).value).toBe("0.1000000000000000000001");
  });

  it("throws ApiError with code, message and fields from an error body", async () => {
    reply = () =>
      json(
        400,
        '{"code":"invalid","error":"invalid request body: body.inptu unknown field \\"inptu\\"","fields":[{"path":"body.inptu","message":"unknown field \\"inptu\\""}]}',
      );
    const error = await createClient({ server: baseUrl })
      .call("startInstance", { body: { process: "p", inptu: {} } as never })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({
      status: 400,
      code: "invalid",
      message: 'invalid request body: body.inptu unknown field "inptu"',
    });
    expect((error as ApiError).fields).toEqual([{ path: "body.inptu", message: 'unknown field "inptu"' }]);
  });

  it("turns a non-JSON error body into an ApiError whose code follows the status", async () => {
    reply = () => ({ status: 502, body: "<html>Bad Gateway</html>", contentType: "text/html" });
    const bad = await createClient({ server: baseUrl })
      .call("listTokens")
      .catch((e: unknown) => e);
    expect(bad).toMatchObject({ name: "ApiError", status: 502, code: "internal" });
    expect((bad as ApiError).message).toContain("502");
    reply = () => ({ status: 404, body: "not here" });
    const missing = await createClient({ server: baseUrl })
      .call("revokeToken", { params: { id: "t" } })
      .catch((e: unknown) => e);
    expect(missing).toMatchObject({ status: 404, code: "not_found" });
  });

  it("returns 202 and 204 answers with their status from callRaw; call gives undefined for 204", async () => {
    const client = createClient({ server: baseUrl });
    reply = () => json(202, '{"outcome":"pausing","status":"pausing","instances":2}');
    const draining = await client.callRaw("pauseInstance", { params: { id: "r" } });
    expect(draining.status).toBe(202);
    expect(draining.data).toEqual({ outcome: "pausing", status: "pausing", instances: 2 });
    expect(seen[0]).toMatchObject({ method: "POST", url: "/api/instances/r/pause", body: "" });
    reply = () => ({ status: 204 });
    const nothing = await client.callRaw("pauseInstance", { params: { id: "r" } });
    expect(nothing).toMatchObject({ status: 204, data: undefined });
    expect(await client.call("resumeInstance", { params: { id: "r" } })).toBeUndefined();
  });

  it("lets callRaw read the 503 body of health, while call throws unavailable", async () => {
    reply = () =>
      json(
        503,
        '{"status":"unavailable","worker_id":"w","database":"postgres","lease_age_ms":90000,"manual_tick":false}',
      );
    const client = createClient({ server: baseUrl });
    const raw = await client.callRaw("health");
    expect(raw.status).toBe(503);
    expect(raw.data?.status).toBe("unavailable");
    await expect(client.call("health")).rejects.toMatchObject({ status: 503, code: "unavailable" });
    reply = () => json(409, '{"code":"conflict","error":"instance r is completed and cannot advance"}');
    await expect(
      client.callRaw("resumeInstance", { params: { id: "r" } }),
      "an undeclared status still throws",
    ).rejects.toMatchObject({ code: "conflict" });
  });

  it("throws ConnectionError naming the server when nothing listens", async () => {
    const closed = createServer();
    closed.listen(0, "127.0.0.1");
    await once(closed, "listening");
    const port = (closed.address() as AddressInfo).port;
    closed.close();
    await once(closed, "close");
    const error = await createClient({ server: `http://127.0.0.1:${port}` })
      .call("health")
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as ConnectionError).server).toBe(`http://127.0.0.1:${port}`);
    expect((error as Error).message).toMatch(
      new RegExp(`^cannot reach the Baton server at http://127\\.0\\.0\\.1:${port}: .*ECONNREFUSED`),
    );
    expect((error as Error).cause).toBeDefined();
  });

  it("refuses a call without a required path parameter before sending anything", async () => {
    const client = createClient({ server: baseUrl });
    await expect(client.call("getInstance", { params: { id: "" } })).rejects.toThrow(
      'getInstance: missing path parameter "id"',
    );
    expect(seen).toEqual([]);
  });

  it("writes a LosslessNumber query value as its exact digits", () => {
    expect(
      actionUrl("http://h", findAction("listInstances"), {
        query: { created_after: new LosslessNumber("1767225600000123") },
      }),
    ).toBe("http://h/api/instances?created_after=1767225600000123");
  });

  it("throws ApiError when a success answer is not valid JSON", async () => {
    reply = () => json(200, "{not json");
    await expect(createClient({ server: baseUrl }).call("listTokens")).rejects.toMatchObject({
      name: "ApiError",
      status: 200,
      code: "internal",
    });
  });

  it("passes an abort through as an abort, not as a connection failure", async () => {
    const controller = new AbortController();
    controller.abort();
    const error = await createClient({ server: baseUrl })
      .call("listTokens", { signal: controller.signal })
      .catch((e: unknown) => e);
    expect(error).not.toBeInstanceOf(ConnectionError);
    expect((error as Error).name).toBe("AbortError");
  });

  it("refuses a body on an action that takes none", async () => {
    await expect(createClient({ server: baseUrl }).call("listTokens", { body: {} } as never)).rejects.toThrow(
      "listTokens: this action takes no request body",
    );
    expect(seen).toEqual([]);
  });

  it("uses the injected fetch", async () => {
    const calls: string[] = [];
    const fake: typeof fetch = async (input) => {
      calls.push(String(input));
      return new Response('{"count":0}', { status: 200, headers: { "content-type": "application/json" } });
    };
    const data = await createClient({ server: "http://example.invalid", fetch: fake }).call("tick");
    expect(calls).toEqual(["http://example.invalid/api/tick"]);
    expect(data.count).toBe(0);
  });
});

describe("listAll", () => {
  it("follows next_cursor over three pages and keeps the caller's filters", async () => {
    const pages: Record<string, { items: { name: string }[]; next: string | null }> = {
      "": { items: [{ name: "a" }, { name: "b" }], next: "c1" },
      c1: { items: [{ name: "c" }, { name: "d" }], next: "c2" },
      c2: { items: [{ name: "e" }], next: null },
    };
    reply = (req) => {
      const after = new URL(req.url, baseUrl).searchParams.get("after") ?? "";
      const page = pages[after];
      return json(
        200,
        JSON.stringify({
          items: page.items.map((item) => ({ ...item, version: 1, created_at: "2026-01-01T00:00:00Z" })),
          page: {
            size: 2,
            items_before: 0,
            items_after: 0,
            sort: "name",
            order: "asc",
            next_cursor: page.next,
            previous_cursor: null,
          },
        }),
      );
    };
    const client = createClient({ server: baseUrl });
    const all = await listAll(client, "listDefinitions", {
      query: { sort: "name", order: "asc", limit: 2, before: "ignored" },
    });
    expect(all.map((item) => item.name)).toEqual(["a", "b", "c", "d", "e"]);
    expect(seen.map((req) => req.url)).toEqual([
      "/api/definitions?sort=name&order=asc&limit=2",
      "/api/definitions?sort=name&order=asc&limit=2&after=c1",
      "/api/definitions?sort=name&order=asc&limit=2&after=c2",
    ]);
  });

  it("stops with an error when the server repeats a cursor", async () => {
    reply = () =>
      json(
        200,
        '{"items":[],"page":{"size":20,"items_before":0,"items_after":0,"sort":"name","order":"asc","next_cursor":"same","previous_cursor":null}}',
      );
    await expect(listAll(createClient({ server: baseUrl }), "listChannels")).rejects.toThrow(
      'returned the cursor "same" twice',
    );
  });
});
