import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { httpCall } from "./http-call.js";
import { TaskFailure } from "../advance/task-failure.js";

let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    if (req.url === "/big") {
      res.writeHead(200);
      res.end(Buffer.alloc(64 * 1024, 97));
    } else if (req.url === "/cut") {
      // Headers and part of the body, then the connection dies.
      res.writeHead(200, { "content-length": "1000" });
      res.write("partial");
      setTimeout(() => res.socket?.destroy(), 20);
    } else if (req.url === "/drop") {
      req.socket.destroy();
    } else if (req.url?.startsWith("/slow")) {
      setTimeout(() => res.end("late"), 2_000);
    } else {
      res.writeHead(201, { "x-answer": "42" });
      res.end(JSON.stringify({ method: req.method }));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const call = (path: string, extra: Partial<Parameters<typeof httpCall>[0]> = {}) =>
  httpCall({
    method: "GET",
    url: new URL(path, base),
    headers: {},
    timeoutMs: 1_000,
    maxResponseBytes: 1024 * 1024,
    ...extra,
  });

async function failure(promise: Promise<unknown>): Promise<TaskFailure> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(TaskFailure);
    return error as TaskFailure;
  }
  throw new Error("expected a TaskFailure");
}

describe("httpCall", () => {
  it("resolves with any status, lower-cased headers and the body", async () => {
    const res = await call("/ok", { method: "PATCH" });
    expect(res.status).toBe(201);
    expect(res.headers["x-answer"]).toBe("42");
    expect(JSON.parse(res.body.toString())).toEqual({ method: "PATCH" });
  });

  it("fails with output.too_large above the response cap", async () => {
    expect((await failure(call("/big", { maxResponseBytes: 1024 }))).code).toBe("output.too_large");
  });

  it("fails with http.disconnected when the connection breaks after the request left", async () => {
    expect((await failure(call("/cut"))).code).toBe("http.disconnected");
    expect((await failure(call("/drop"))).code).toBe("http.disconnected");
  });

  it("fails with http.timeout when the deadline passes after the request left", async () => {
    const f = await failure(call("/slow", { timeoutMs: 100 }));
    expect(f.code).toBe("http.timeout");
    expect(f.message).toContain("100 ms");
  });

  it("fails with pre.error when the connection is refused or the name does not resolve", async () => {
    expect((await failure(call("http://127.0.0.1:1/x"))).code).toBe("pre.error");
    expect((await failure(call("http://no-such-host.invalid/x"))).code).toBe("pre.error");
  });

  it("fails with pre.error when the engine abandons the call before it is made", async () => {
    const abort = new AbortController();
    abort.abort();
    expect((await failure(call("/ok", { abort: abort.signal }))).code).toBe("pre.error");
  });

  it("never puts the query string in its messages (it may carry secrets)", async () => {
    const f = await failure(call("/slow?token=secret", { timeoutMs: 50 }));
    expect(f.message).not.toContain("secret");
  });
});

describe("httpCall with a checked address", () => {
  it("connects to exactly that address whatever the name resolves to now, keeping the name in Host", async () => {
    let host: string | undefined;
    const named = createServer((req, res) => {
      host = req.headers.host;
      res.end("{}");
    });
    await new Promise<void>((resolve) => named.listen(0, "127.0.0.1", resolve));
    const port = (named.address() as AddressInfo).port;
    try {
      // `.invalid` never resolves (RFC 2606): only the pinned address can have been used.
      const response = await httpCall({
        method: "GET",
        url: new URL(`http://service.invalid:${port}/x`),
        headers: {},
        timeoutMs: 5_000,
        maxResponseBytes: 1024,
        address: { address: "127.0.0.1", family: 4 },
      });
      expect(response.status).toBe(200);
      expect(host).toBe(`service.invalid:${port}`);
      // Without a pin such a name cannot even resolve (another name: the agent keeps the first socket alive).
      await expect(
        httpCall({
          method: "GET",
          url: new URL(`http://other-service.invalid:${port}/x`),
          headers: {},
          timeoutMs: 5_000,
          maxResponseBytes: 1024,
        }),
      ).rejects.toMatchObject({ code: "pre.error" });
    } finally {
      named.closeAllConnections();
      await new Promise((resolve) => named.close(resolve));
    }
  });
});
