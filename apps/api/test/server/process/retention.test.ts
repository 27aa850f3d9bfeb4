// --retention and --log-retention in a real server: the flags reach the passes the server runs
// on its own timer (docs/retention.md), which prune on the service clock (moved forward with
// POST /tick advance_ms) and count what they delete in /metrics.
import { client, startServer, type TestServer } from "@baton/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deployAndStart } from "../../support/instances-fixtures.js";

let server: TestServer;
let api: ReturnType<typeof client>;

beforeAll(async () => {
  server = await startServer({ args: ["--poll", "0", "--retention", "1h", "--log-retention", "1h"] });
  api = client(server.url);
}, 60_000);
afterAll(async () => {
  await server?.stop();
});

const pruned = async (table: string) => {
  const text = (await api.get("/metrics")).text;
  const m = new RegExp(`^baton_retention_pruned_total\\{table="${table}"\\} (\\S+)$`, "m").exec(text);
  return Number(m?.[1] ?? Number.NaN);
};

describe("a server started with --retention", () => {
  it("deletes a tree settled longer ago than the retention, on its own timer, and counts it in /metrics", async () => {
    const done = await deployAndStart(api, { name: "short", tasks: [{ id: "only", output: { ok: true } }] });
    const live = (
      await api.put("/api/definitions", {
        name: "long",
        tasks: [{ id: "wait", action: { type: "delay", for: "30d" } }],
      })
    ).status;
    expect(live).toBe(200);
    const waiting = (await api.post("/api/instances", { process: "long" })).body.id as string;
    await api.post("/api/tick", {});
    expect((await api.get(`/api/instances/${done}`)).body.status).toBe("completed");
    expect((await api.get(`/api/instances/${waiting}`)).body.status).toBe("running");
    expect(await pruned("instances")).toBe(0);
    await api.post("/api/tick", { advance_ms: 2 * 3_600_000 });

    // Passes run 5 s after start and then every 30 s.
    const deadline = Date.now() + 45_000;
    while ((await api.get(`/api/instances/${done}`)).status !== 404) {
      if (Date.now() > deadline) throw new Error("the settled tree was not pruned within 45 s");
      await new Promise((r) => setTimeout(r, 250));
    }
    expect(await pruned("instances")).toBe(1);
    expect(await pruned("logs")).toBeGreaterThanOrEqual(1);
    const kept = await api.get(`/api/instances/${waiting}`);
    expect(kept.status).toBe(200);
    expect(kept.body.status).toBe("running");
  }, 60_000);
});
