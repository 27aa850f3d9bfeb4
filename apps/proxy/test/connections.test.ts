// Connection hygiene of the built proxy on real sockets (docs/limits.md "Connections"): a
// connection that sends nothing, or half a request head, is closed; past --max-connections the
// oldest idle connection makes room, so /healthz (forwarded to the API) is answered while the
// cap is full of silent sockets, and the refusals log a few lines, not one each.

import { connect, type Socket } from "node:net";
import { json, startUpstream, type Upstream } from "@baton/testkit";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type ProxyProcess, requireBuilt, startProxy } from "./support/proxy-process.js";

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

let api: Upstream;
const sockets: Socket[] = [];
beforeAll(async () => {
  requireBuilt();
  api = await startUpstream((_r, res) => json(res, 200, { ok: true }));
});
afterAll(async () => {
  for (const s of sockets) s.destroy();
  await api?.close();
});

async function open(url: string, send?: string): Promise<{ closed: Promise<string> }> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  sockets.push(socket);
  let received = "";
  socket.on("data", (d) => (received += d));
  socket.on("error", () => {});
  const closed = new Promise<string>((resolve) => socket.once("close", () => resolve(received)));
  await new Promise<void>((resolve) => socket.once("connect", () => resolve()));
  if (send) socket.write(send);
  return { closed };
}

describe("baton-proxy's connections", () => {
  let proxy: ProxyProcess;
  afterAll(() => proxy?.stop());

  it("are closed with 408 when they send nothing or half a request head (--header-timeout-ms)", async () => {
    proxy = await startProxy(["--server", api.url, "--header-timeout-ms", "500"]);
    const silent = await open(proxy.url);
    const half = await open(proxy.url, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n");
    expect(await silent.closed).toMatch(/^HTTP\/1\.1 408 /);
    expect(await half.closed).toMatch(/^HTTP\/1\.1 408 /);
    await proxy.stop();
  });

  it("past --max-connections make room for /healthz by closing the oldest idle one, logging a few lines", async () => {
    proxy = await startProxy(["--server", api.url, "--max-connections", "50", "--header-timeout-ms", "60000"]);
    const silent = [];
    for (let i = 0; i < 150; i++) silent.push(await open(proxy.url));
    const res = await fetch(`${proxy.url}/healthz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true });
    expect(await silent[0]!.closed, "the oldest silent socket was closed unanswered").toBe("");
    const lines = proxy
      .stderr()
      .split("\n")
      .filter((l) => l.includes("connection evicted"));
    expect(lines.length, "about 100 evictions, a line per 10 s").toBeGreaterThanOrEqual(1);
    expect(lines.length).toBeLessThanOrEqual(2);
  });
});
