import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { connect, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import {
  type ConnectionGuard,
  type ConnectionLimits,
  DEFAULT_CONNECTION_LIMITS,
  guardConnections,
  serverOptions,
} from "./connection-limits.js";

// A real node http server on loopback with the guard, driven by raw sockets. No timing
// assertions: each test waits for a close or an answer (vitest's timeout is the hang guard).

let server: Server | undefined;
const sockets: Socket[] = [];
let release: (() => void)[] = [];

afterEach(async () => {
  for (const r of release) r();
  release = [];
  for (const s of sockets.splice(0)) s.destroy();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server?.closeAllConnections();
  server = undefined;
});

async function start(limits: Partial<ConnectionLimits>): Promise<{ port: number; guard: ConnectionGuard }> {
  const all = { ...DEFAULT_CONNECTION_LIMITS, ...limits };
  const s = createServer(serverOptions(all), (req, res) => {
    if (req.url === "/hold") return void release.push(() => res.end("released"));
    res.end("ok");
  });
  s.keepAliveTimeout = all.keepAliveTimeoutMs;
  const guard = guardConnections(s, all);
  await new Promise<void>((resolve) => s.listen(0, "127.0.0.1", resolve));
  server = s;
  return { port: (s.address() as AddressInfo).port, guard };
}

/** A raw socket that has connected; `closed` resolves with what it received before closing. */
async function open(port: number, send?: string): Promise<{ socket: Socket; closed: Promise<string> }> {
  const socket = connect(port, "127.0.0.1");
  sockets.push(socket);
  let received = "";
  socket.on("data", (d) => (received += d));
  socket.on("error", () => {});
  const closed = new Promise<string>((resolve) => socket.once("close", () => resolve(received)));
  await new Promise<void>((resolve, reject) => {
    socket.once("connect", () => resolve());
    socket.once("close", () => reject(new Error("closed before connecting")));
  });
  if (send) socket.write(send);
  return { socket, closed };
}

const get = (port: number, path: string) =>
  new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request({ port, host: "127.0.0.1", path, agent: false }, (res) => {
      let body = "";
      res.on("data", (d) => (body += d));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    req.end();
  });

describe("the connection timeouts", () => {
  it("close a socket that never sends a byte and one that sends half a request head, with 408", async () => {
    const { port } = await start({ headerTimeoutMs: 300 });
    const silent = await open(port);
    const half = await open(port, "GET / HTTP/1.1\r\nHost: x\r\n");
    expect(await silent.closed).toMatch(/^HTTP\/1\.1 408 /);
    expect(await half.closed).toMatch(/^HTTP\/1\.1 408 /);
  });

  it("close an idle keep-alive connection after its answer", async () => {
    const { port } = await start({ keepAliveTimeoutMs: 200 });
    const kept = await open(port, "GET /x HTTP/1.1\r\nHost: x\r\n\r\n");
    expect(await kept.closed).toMatch(/^HTTP\/1\.1 200 [\s\S]*ok$/);
  });
});

describe("the connection cap", () => {
  it("closes the oldest silent connection for a new one, so a probe is answered while the cap is full of them", async () => {
    const { port, guard } = await start({ maxConnections: 20, headerTimeoutMs: 60_000 });
    const silent = [];
    for (let i = 0; i < 20; i++) silent.push(await open(port));
    expect(guard.open()).toBe(20);
    expect(await get(port, "/healthz")).toEqual({ status: 200, body: "ok" });
    expect(await silent[0]!.closed, "the oldest was closed, unanswered").toBe("");
    expect(guard.evicted()).toBeGreaterThanOrEqual(1);
    expect(guard.refused()).toBe(0);
  });

  it("closes a new connection at once when every open one is busy, and answers again once one is done", async () => {
    const { port, guard } = await start({ maxConnections: 4 });
    const holding = [];
    for (let i = 0; i < 4; i++) holding.push(await open(port, "GET /hold HTTP/1.1\r\nHost: x\r\n\r\n"));
    await until(() => release.length === 4);
    const extra = connect(port, "127.0.0.1");
    sockets.push(extra);
    extra.on("error", () => {});
    let got = "";
    extra.on("data", (d) => (got += d));
    await new Promise((resolve) => extra.once("close", resolve));
    expect(got, "closed before a byte was read or answered").toBe("");
    expect(guard.refused()).toBe(1);
    release.shift()!();
    expect(await get(port, "/healthz")).toEqual({ status: 200, body: "ok" });
  });
});

async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 10));
}
