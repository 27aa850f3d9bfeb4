// Floods against the built server on real sockets (docs/limits.md "Callers", "Connections"):
// bogus credentials from one address, one credential holding too many requests, silent and
// half-sent connections, more connections than the cap. Each is refused with a clear 4xx or
// closed, the probes keep answering, and the log does not get a line per refusal.
import { connect, type Socket } from "node:net";
import { pollHealth, startServer, type TestServer, until } from "@baton/testkit";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { bearer, jwtFlags, jwtSecretFile, mintJwt } from "../../support/auth-fixtures.js";

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

const sockets: Socket[] = [];
afterAll(() => {
  for (const s of sockets) s.destroy();
});

/** A raw socket that has connected; `closed` resolves with what it received before closing. */
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

let workers = 0;
/** A long-poll claim as `credential` (a worker of its own): in flight for its 10 s wait (nothing to claim). */
function heldClaim(url: string, credential: string, abort: AbortController): Promise<Response> {
  return fetch(`${url}/api/external-tasks/claim`, {
    method: "POST",
    headers: { ...bearer(credential), "content-type": "application/json" },
    body: JSON.stringify({ worker_id: `w${++workers}`, wait_ms: 10_000 }),
    signal: abort.signal,
  });
}

describe("callers past their share", () => {
  let server: TestServer;
  let secret: ReturnType<typeof jwtSecretFile>;
  const holds: AbortController[] = [];
  beforeAll(async () => {
    secret = jwtSecretFile();
    server = await startServer({
      args: [
        "--auth",
        "token",
        ...jwtFlags(secret.path),
        "--limit-requests-per-address",
        "3",
        "--limit-requests-per-credential",
        "2",
      ],
    });
  });
  afterAll(async () => {
    for (const h of holds) h.abort();
    await server?.stop();
    secret?.dispose();
  });

  const hold = async (credential: string) => {
    const abort = new AbortController();
    holds.push(abort);
    heldClaim(server.url, credential, abort).catch(() => undefined);
    return abort;
  };
  /** GETs /api/instances as `credential` until the answer is `status` (the hang guard is the test's timeout). */
  const getUntil = async (credential: string, status: number | ((s: number) => boolean)): Promise<Response> => {
    const wanted = typeof status === "number" ? (s: number) => s === status : status;
    for (;;) {
      const res = await fetch(`${server.url}/api/instances`, { headers: bearer(credential) });
      if (wanted(res.status)) return res;
      await res.arrayBuffer();
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };

  it("answer 150 concurrent bogus-token requests with 401 or 429 while /healthz answers every probe", async () => {
    // Ready first: on PostgreSQL the first probe also opens the ping's own connection.
    await until("the server is ready", async () => ((await fetch(`${server.url}/healthz`)).ok ? true : undefined));
    const health = pollHealth(server.url);
    const statuses = await Promise.all(
      Array.from({ length: 150 }, async (_, i) => {
        const res = await fetch(`${server.url}/api/instances`, { headers: bearer(`svc_sk_bogus-${i}`) });
        await res.arrayBuffer();
        return res.status;
      }),
    );
    const probes = await health.stop();
    expect(new Set(statuses)).toEqual(new Set(statuses.filter((s) => s === 401 || s === 429)));
    expect(probes.failures).toEqual([]);
    expect(probes.answered).toBeGreaterThan(0);
  });

  it("log a refused credential at most once per 10 s per reason, with the count held back", async () => {
    for (let i = 0; i < 200; i++) {
      const res = await fetch(`${server.url}/api/instances`, { headers: bearer(`svc_sk_again-${i}`) });
      await res.arrayBuffer();
      expect(res.status).toBe(401);
    }
    const lines = server
      .stderr()
      .split("\n")
      .filter((l) => l.includes('"credential refused"'));
    expect(lines.length, "350 refusals so far").toBeLessThanOrEqual(6);
    expect(lines.length).toBeGreaterThanOrEqual(1);
  });

  it("refuse one credential's request past --limit-requests-per-credential with 429 and Retry-After, and serve it again once one ends", async () => {
    const ann = await mintJwt({ sub: "ann@example.com", perms: ["worker", "read"] });
    await hold(ann);
    await hold(ann);
    // Once both claims are in flight, a third request of Ann's is refused.
    const res = await getUntil(ann, 429);
    expect(res.headers.get("retry-after")).toBe("1");
    const body = (await res.json()) as { code: string; error: string };
    expect(body.code).toBe("unavailable");
    expect(body.error).toContain("this credential already has 2 requests in progress (--limit-requests-per-credential");
    // When the claims' waits end, Ann is served again.
    const after = await getUntil(ann, (s) => s !== 429);
    expect(after.status, "served again").toBe(200);
    for (const h of holds.splice(0)) h.abort();
  });

  it("refuse an address past --limit-requests-per-address with 429 before authenticating it", async () => {
    for (const sub of ["a@example.com", "b@example.com", "c@example.com"])
      await hold(await mintJwt({ sub, perms: ["worker"] }));
    // Once the three claims are in flight, a fourth request from this address is refused
    // before its credential is looked at: 429, where authentication would have said 401.
    const res = await getUntil("svc_sk_not-even-looked-up", (s) => s !== 401);
    expect(res.status).toBe(429);
    expect(((await res.json()) as { error: string }).error).toContain("--limit-requests-per-address");
    expect((await fetch(`${server.url}/healthz`)).status, "the probes are never counted").toBe(200);
    for (const h of holds.splice(0)) h.abort();
  });
});

describe("connections", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ args: ["--header-timeout-ms", "1000", "--max-connections", "50"] });
  });
  afterAll(() => server?.stop());

  it("that send nothing, or half a request head, are answered 408 naming the flags and closed", async () => {
    const silent = await open(server.url);
    const half = await open(server.url, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n");
    for (const answer of [await silent.closed, await half.closed]) {
      expect(answer).toMatch(/^HTTP\/1\.1 408 /);
      expect(answer).toContain("--header-timeout-ms");
    }
  });

  it("past --max-connections, of which 150 sit silent, still let /healthz in by closing the oldest", async () => {
    const silent = [];
    for (let i = 0; i < 150; i++) silent.push(await open(server.url));
    const res = await fetch(`${server.url}/healthz`);
    expect(res.status).toBe(200);
    expect(await silent[0]!.closed, "the oldest was closed unanswered").toBe("");
    const lines = server
      .stderr()
      .split("\n")
      .filter((l) => l.includes("connection evicted"));
    expect(lines.length, "about 100 evictions, a line per 10 s").toBeLessThanOrEqual(2);
  });
});
