// Poison instances, with real processes (docs/limits.md#poison-instances): an instance
// whose advance takes its process down every time (here: SIGKILL while its fetch is in flight)
// does not crash-loop the fleet. Each lease taken on it — the start carrying it on, then every
// claim after the dead process's lease lapsed — is an attempt; the claim past
// --limit-advance-attempts fails it with engine.crashed instead of running it again. No timing:
// each step waits for the fetch to arrive (the advance is in flight) before killing, and each
// restarted server moves its own clock past the dead one's lease instead of waiting 10 s.
import {
  client,
  type SharedDatabase,
  sharedDatabase,
  startServer,
  startUpstream,
  type TestServer,
  type Upstream,
  until,
} from "@baton/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const LIMIT = 2;
let up: Upstream;
let hits = 0;
let server: TestServer | undefined;
let database: SharedDatabase;

beforeAll(async () => {
  // Never answers: the process running the advance is killed while it waits.
  up = await startUpstream(() => {
    hits++;
  });
  // Outlives each killed process: every restart reopens it.
  database = await sharedDatabase("baton-crash-loop-");
});

afterAll(async () => {
  await server?.stop().catch(() => {});
  await up?.close();
  await database?.dispose();
});

/**
 * The first server runs its pump, so the start carries the instance on; the restarted ones only
 * claim on POST /tick (--poll 0), so exactly one claim happens per restart, after the tick has
 * moved that server's clock — never one on the real clock racing it.
 */
const start = (poll: number) =>
  startServer({
    args: ["--poll", String(poll), "--limit-advance-attempts", String(LIMIT)],
    database: database.location,
  });

describe("an advance that kills its process every time", () => {
  it(`ends failed with engine.crashed after --limit-advance-attempts ${LIMIT}, across real restarts`, async () => {
    server = await start(100);
    let api = client(server.url);
    const put = await api.put("/api/definitions", {
      name: "crash_loop",
      tasks: [{ id: "call", action: { type: "fetch", url: `${up.url}/loop`, timeout: { for: "10m" } } }],
    });
    expect(put.status, put.text).toBe(200);
    const started = await api.post("/api/instances", { process: "crash_loop" });
    expect(started.status, started.text).toBe(200);
    const id = started.body.id as string;

    // Attempt 1 is the start's own advance; attempts 2… are claims by the restarted servers.
    for (let attempt = 1; attempt <= LIMIT; attempt++) {
      await until(`the fetch of attempt ${attempt}`, async () => (hits >= attempt ? true : undefined), 90_000);
      expect(hits, "one call per attempt").toBe(attempt);
      await server.kill();
      server = await start(0);
      api = client(server.url);
      // Leases last 10 s: move this server's clock past every lease a dead server took (each
      // restarted server counts from its own offset 0) and claim. The round may hang in the
      // next fetch until this server is killed in turn: do not wait for its answer.
      api.post("/api/tick", { advance_ms: 11_000 * attempt }).catch(() => {});
    }

    const failed = await until(
      "the instance to fail",
      async () => {
        const view = (await api.get(`/api/instances/${id}`)).body;
        return view.status === "running" ? undefined : view;
      },
      90_000,
    );
    expect(failed.status).toBe("failed");
    expect(failed.error_code).toBe("engine.crashed");
    expect(failed.error_message).toContain(`claimed ${LIMIT + 1} times since its last write`);
    expect(failed.error_message).toContain(`--limit-advance-attempts is ${LIMIT}`);
    expect(hits, "the claim past the limit ran nothing").toBe(LIMIT);

    const logs = (await api.get(`/api/instances/${id}/logs?order=asc&limit=100`)).body.items as Array<{
      event: string;
      data: { code?: string };
    }>;
    // No advance of it ever landed: its log is the start and the failure.
    expect(logs.map((l) => l.event)).toEqual(["instance.started", "instance.failed"]);
    expect(logs.at(-1)).toMatchObject({ event: "instance.failed", data: { code: "engine.crashed" } });

    // Settled: this server, alive, claims nothing more; it keeps answering.
    const tick = await api.post("/api/tick", { advance_ms: 60_000 });
    expect(tick.status, tick.text).toBe(200);
    expect((await api.get(`/api/instances/${id}`)).body.status).toBe("failed");
    expect((await fetch(new URL("/healthz", server.url))).status).toBe(200);
    expect(hits).toBe(LIMIT);
  }, 300_000);
});
