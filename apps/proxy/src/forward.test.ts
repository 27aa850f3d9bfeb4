import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startUpstream, type Upstream } from "@baton/testkit";
import { forward, upstreamHeaders } from "./forward.js";

describe("upstreamHeaders", () => {
  const incoming = new Headers({
    cookie: "baton_session=abc",
    authorization: "Bearer from-the-browser",
    connection: "keep-alive, x-private",
    "x-private": "hop",
    "keep-alive": "timeout=5",
    "transfer-encoding": "chunked",
    "proxy-authorization": "Basic x",
    host: "proxy.example.com",
    accept: "application/json",
  });

  it("drops cookies, hop-by-hop headers and those named in Connection, and sets Host to the API", () => {
    expect(upstreamHeaders(incoming, { kind: "none" }, "api:8449")).toEqual({
      accept: "application/json",
      host: "api:8449",
    });
  });

  it("replaces Authorization with the minted token", () => {
    expect(upstreamHeaders(incoming, { kind: "bearer", token: "jwt" }, "api").authorization).toBe("Bearer jwt");
  });

  it("keeps the caller's Authorization only in pass-through mode", () => {
    expect(upstreamHeaders(incoming, { kind: "pass-through" }, "api").authorization).toBe("Bearer from-the-browser");
  });
});

describe("forward", () => {
  let upstream: Upstream;
  beforeAll(async () => {
    upstream = await startUpstream((r, res) => {
      res.writeHead(201, { "content-type": "text/plain", "set-cookie": "x=1", "x-api": "yes", connection: "close" });
      res.end(`${r.method} ${r.path} ${r.body}`);
    });
  });
  afterAll(() => upstream.close());

  it("sends method, path, query and body, and returns status, headers and body", async () => {
    const req = new Request("http://proxy.test/api/instances?limit=5&order=asc", {
      method: "POST",
      body: '{"a":1}',
      headers: { "content-type": "application/json" },
    });
    const res = await forward(req, new URL(upstream.url), { kind: "none" });
    expect(res.status).toBe(201);
    expect(await res.text()).toBe('POST /api/instances?limit=5&order=asc {"a":1}');
    expect(res.headers.get("x-api")).toBe("yes");
    expect(res.headers.get("set-cookie"), "the API never sets cookies on the proxy's origin").toBeNull();
    expect(res.headers.get("connection")).toBeNull();
    expect(upstream.requests.at(-1)!.headers["content-type"]).toBe("application/json");
  });

  it("prefixes the server URL's path", async () => {
    await forward(new Request("http://proxy.test/healthz"), new URL(`${upstream.url}/baton/`), { kind: "none" });
    expect(upstream.requests.at(-1)!.path).toBe("/baton/healthz");
  });

  it("streams a large body through unchanged", async () => {
    const big = "x".repeat(3 * 1024 * 1024);
    const res = await forward(
      new Request("http://proxy.test/api/x", { method: "PUT", body: big }),
      new URL(upstream.url),
      { kind: "none" },
    );
    expect((await res.text()).length).toBe("PUT /api/x ".length + big.length);
  });
});
