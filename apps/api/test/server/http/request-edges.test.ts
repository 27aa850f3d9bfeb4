// The request edge (docs/limits.md "Requests"): bodies past their limit, chunked or not, large
// bodies arriving together, oversized URLs and headers, `__proto__` keys and integers that only
// round to one. Each is a 400 (or 413, 431) naming the field or bound, never a 500 or an unbounded
// buffer, what is validated is what is handled, and the service keeps answering.
import http from "node:http";
import { client, request, startServer, type TestServer, settled } from "@baton/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LARGE_BODY_CHARS } from "../../../src/http/admission.js";

let server: TestServer;
let api: ReturnType<typeof client>;

beforeAll(async () => {
  server = await startServer({
    args: ["--poll", "100", "--max-body", "65536", "--max-definition-body", "131072"],
  });
  api = client(server.url);
  const put = await api.put("/api/definitions", {
    name: "edge",
    input_schema: { type: "object", properties: { qty: { type: "integer", minimum: 1 } } },
    tasks: [{ id: "wait", action: { type: "external" } }],
  });
  expect(put.status).toBe(200);
}, 120_000);

afterAll(async () => {
  await server?.stop();
});

/**
 * Sends a chunked body (no content-length) one chunk at a time, each written to the socket
 * before the next, until more than `limit` bytes are out; then it stops writing, without ending
 * the body, and waits for the answer. Resolves with the status and how much was written.
 *
 * Nothing is written once the server may have answered: a write into a connection the server
 * has answered and reset fails (EPIPE), and node's client then destroys the socket before
 * reading the answer already waiting in it. When no write is pending, the socket reads that
 * answer before it sees the reset.
 */
function chunkedPost(path: string, limit: number): Promise<{ status: number; written: number }> {
  return new Promise((resolve, reject) => {
    const url = new URL(path, server.url);
    const req = http.request(url, { method: "POST", headers: { "content-type": "application/json" } });
    let written = 0;
    let done = false;
    req.on("response", (res) => {
      done = true;
      res.resume();
      resolve({ status: res.statusCode ?? 0, written });
      req.destroy();
    });
    req.on("error", (error) => {
      if (!done) reject(error);
    });
    const chunk = Buffer.alloc(16 * 1024, 0x20);
    const next = (error?: Error | null) => {
      if (error || done || written > limit) return;
      written += chunk.length;
      req.write(chunk, next);
    };
    written = 1;
    req.write("{", next);
  });
}

describe("the request edge", () => {
  it("answers 413 to a chunked body past --max-body without waiting for the rest of it", async () => {
    // The body never ends: a server that waited for the rest would never answer.
    const maxBody = 65536;
    const res = await chunkedPost("/api/instances", maxBody);
    expect(res.status).toBe(413);
    expect(res.written, "the answer came with the body unfinished, one chunk past the limit").toBeLessThan(
      maxBody + 16 * 1024 + 2,
    );
    expect((await api.get("/healthz")).status).toBe(200);
  });

  it("handles large bodies that arrive together one at a time, losing none (http/admission.ts)", async () => {
    const head = '{"process":"edge","input":{"qty":1,"pad":"';
    const body = `${head}${"x".repeat(LARGE_BODY_CHARS - head.length - 3)}"}}`;
    expect(body.length).toBe(LARGE_BODY_CHARS);
    const answers = await Promise.all(
      Array.from({ length: 10 }, () =>
        fetch(`${server.url}/api/instances`, { method: "POST", headers: { "content-type": "application/json" }, body }),
      ),
    );
    const ids = await Promise.all(
      answers.map(async (res) => {
        expect(res.status).toBe(200);
        return ((await res.json()) as { id: string }).id;
      }),
    );
    expect(new Set(ids).size).toBe(10);
  });

  it("answers a URL or headers past 16 KiB with 431 and a JSON body naming the bound", async () => {
    for (const res of [
      await fetch(`${server.url}/api/instances?process=${"a".repeat(20_000)}`),
      await fetch(`${server.url}/api/instances`, { headers: { "x-long": "a".repeat(20_000) } }),
    ]) {
      expect(res.status).toBe(431);
      expect(res.headers.get("content-type")).toContain("application/json");
      expect(await res.json()).toEqual({
        code: "invalid",
        error:
          "the request's headers (the URL included) are larger than 16384 bytes, the most the server reads; send a shorter URL or shorter headers",
      });
    }
    expect((await fetch(`${server.url}/healthz`)).status, "the server answers on").toBe(200);
  });

  it("answers 413 naming --max-body past it on every endpoint but the definition endpoints", async () => {
    const body = JSON.stringify({ process: "edge", input: { pad: "x".repeat(65_536) } });
    const res = await request(server.url, "POST", "/api/instances", body);
    expect(res.status).toBe(413);
    expect(res.body).toEqual({
      code: "invalid",
      error: "the request body is larger than the limit of 65536 bytes (--max-body, docs/limits.md)",
    });
  });

  it("gives the definition endpoints their own limit, --max-definition-body, and answers 413 naming it past it", async () => {
    const padded = (bytes: number) => ({
      name: "edge_big",
      tasks: [{ id: "a", output: { pad: "x".repeat(bytes) } }],
    });
    const within = await api.put("/api/definitions", padded(100_000));
    expect(within.status, within.text.slice(0, 300)).toBe(200);
    const validated = await api.post("/api/definitions/validate", [padded(100_000)]);
    expect(validated.status, validated.text.slice(0, 300)).toBe(200);
    for (const [method, path, body] of [
      ["PUT", "/api/definitions", padded(131_072)],
      ["PUT", "/api/definitions/batch", { channel: "edge", definitions: [padded(131_072)] }],
      ["POST", "/api/definitions/validate", [padded(131_072)]],
      ["POST", "/api/definitions/compat", { from: { definitions: [padded(131_072)] }, to: { channel: "edge" } }],
    ] as const) {
      const res = await request(server.url, method, path, body);
      expect(res.status, path).toBe(413);
      expect(res.body, path).toEqual({
        code: "invalid",
        error: "the request body is larger than the limit of 131072 bytes (--max-definition-body, docs/limits.md)",
      });
    }
  });

  it("refuses a definition endpoint's malformed body, parsed on the checker thread, exactly as any other endpoint's", async () => {
    const malformed = '{"name": "edge_bad", "tasks": [';
    const elsewhere = await request(server.url, "POST", "/api/instances", malformed);
    expect(elsewhere.status).toBe(400);
    expect(elsewhere.body.error).toMatch(/^the request body is not valid JSON: /);
    for (const [method, path] of [
      ["PUT", "/api/definitions"],
      ["PUT", "/api/definitions/batch"],
      ["POST", "/api/definitions/validate"],
      ["POST", "/api/definitions/compat"],
    ] as const) {
      const res = await request(server.url, method, path, malformed);
      expect(res.status, path).toBe(400);
      expect(res.body, path).toEqual(elsewhere.body);
    }
    const empty = await request(server.url, "PUT", "/api/definitions", "", { "content-type": "application/json" });
    expect(empty.status).toBe(400);
    expect(empty.body).toEqual({
      code: "invalid",
      error: "invalid request body: body is required (a JSON request body)",
      fields: [{ path: "body", message: "is required (a JSON request body)" }],
    });
    const form = await request(server.url, "PUT", "/api/definitions/batch", "a=1", {
      "content-type": "application/x-www-form-urlencoded",
    });
    expect(form.status).toBe(400);
    expect(form.body.error).toBe(
      'the request body must be JSON: send "content-type: application/json" (got "application/x-www-form-urlencoded")',
    );
  });

  it("validates a definition endpoint's body against its schema on the thread: __proto__ is an unknown field", async () => {
    const res = await request(
      server.url,
      "POST",
      "/api/definitions/compat",
      '{"__proto__": {"process": "x"}, "from": {"channel": "edge"}, "to": {"channel": "edge"}}',
    );
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      code: "invalid",
      error: 'invalid request body: body.__proto__ unknown field "__proto__"',
      fields: [{ path: "body.__proto__", message: 'unknown field "__proto__"' }],
    });
    const batch = await api.put("/api/definitions/batch", { channel: "edge", definitions: [], extra: 1 });
    expect(batch.status).toBe(400);
    expect(batch.body.fields).toContainEqual({ path: "body.extra", message: 'unknown field "extra"' });
  });

  it("treats __proto__ in a body as an unknown field, not as the prototype of the validated object", async () => {
    const res = await request(
      server.url,
      "POST",
      "/api/external-tasks/claim",
      '{"__proto__": {"worker_id": "w1"}, "limit": 1}',
    );
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("invalid");
    expect(res.body.error).toContain("worker_id");
  });

  it("keeps a __proto__ key of an instance's input as input data", async () => {
    const put = await api.put("/api/definitions", {
      name: "edge-open",
      input_schema: { type: "object", additionalProperties: { type: "integer" } },
      tasks: [{ id: "done", output: { seen: "$: input" } }],
      output: "$: outputs.done.seen",
    });
    expect(put.status).toBe(200);
    const start = await request(
      server.url,
      "POST",
      "/api/instances",
      '{"process": "edge-open", "input": {"__proto__": 7, "b": 2}}',
    );
    expect(start.status).toBe(200);
    const view = await settled(api, start.body.id);
    expect(view.status).toBe("completed");
    expect(Object.hasOwn(view.output, "__proto__"), "the key survived validation, storage and evaluation").toBe(true);
    expect(view.output.__proto__).toBe(7);
    expect(view.output.b).toBe(2);
  });

  it.each([
    ["a version past int4", "GET", "/api/instances?version=2147483648", "query.version"],
    ["an instant past what a Date holds", "GET", "/api/instances?created_after=1e20", "query.created_after"],
    ["a definition version past int4", "GET", "/api/definitions/edge/versions/2147483648", "path.version"],
  ])("refuses %s with a 400 naming the field", async (_what, method, path, field) => {
    const res = await request(server.url, method, path);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("invalid");
    expect(res.body.error).toContain(field);
  });

  it.each([
    [
      "a token lifetime of 2^53-1 ms",
      "/api/tokens",
      { label: "x", perms: ["read"], expires_in: 2 ** 53 - 1 },
      "body.expires_in",
    ],
    ["a clock advance of 9e15 ms", "/api/tick", { advance_ms: 9e15 }, "body.advance_ms"],
    ["a start of version 2^31", "/api/instances", { process: "edge", version: 2 ** 31 }, "body.version"],
  ])("refuses %s in a body with a 400 naming the field", async (_what, path, body, field) => {
    const res = await api.post(path, body);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("invalid");
    expect(res.body.error).toContain(field);
  });

  it("refuses a body integer that only rounds to an integer (1e-400 validated as 0)", async () => {
    const res = await request(server.url, "POST", "/api/tick", '{"advance_ms": 1e-400}');
    expect(res.status).toBe(400);
    expect(res.body.error).toContain("body.advance_ms");
    expect(res.body.error).toContain("exactly");
  });

  it("lists tokens after a refused oversized expiry (no row was left behind to break the list)", async () => {
    await api.post("/api/tokens", { label: "huge", perms: ["read"], expires_in: 2 ** 53 - 1 });
    const list = await api.get("/api/tokens");
    expect(list.status).toBe(200);
  });

  it("fails a wait whose computed duration is longer than 100 years with engine.limit, not a stuck instance", async () => {
    const put = await api.put("/api/definitions", {
      name: "edge-wait",
      input_schema: { type: "object", properties: { ms: { type: "number" } }, required: ["ms"] },
      tasks: [{ id: "nap", action: { type: "delay", for: "$: input.ms" } }],
    });
    expect(put.status).toBe(200);
    const start = await api.post("/api/instances", { process: "edge-wait", input: { ms: 1e300 } });
    expect(start.status).toBe(200);
    const view = await settled(api, start.body.id);
    expect(view.status).toBe("failed");
    expect(view.error_code).toBe("engine.limit");
  });
});
