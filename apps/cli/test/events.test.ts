import { client, startServer, startUpstream, type TestServer, type Upstream } from "@baton/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BatonRun, baton, isolatedEnv } from "./support/baton.js";
import { fixtureDir } from "./support/fixtures.js";

let server: TestServer;
let receiver: Upstream;
let env: Record<string, string>;
const cli = (args: string[], cwd?: string): Promise<BatonRun> => baton(args, { env, cwd });

beforeAll(async () => {
  server = await startServer({ args: ["--poll", "0"] });
  receiver = await startUpstream();
  env = isolatedEnv({ BATON_SERVER: server.url }).env;
});
afterAll(async () => {
  await server?.stop();
  await receiver?.close();
});

describe("events", () => {
  it("creates a subscription (its secret printed once), lists its deliveries, and manages a hook from a file", async () => {
    const api = client(server.url);
    await api.put("/api/definitions", { name: "quick", tasks: [{ id: "done" }] });
    const put = await cli([
      "subscriptions",
      "put",
      "done",
      "--url",
      `${receiver.url}/e`,
      "--events",
      "instance.completed",
    ]);
    expect(put.code, put.stderr).toBe(0);
    expect(put.stdout).toMatch(/^subscription done \(created\)\nsecret: whsec_\S+ {2}\(shown once/);
    const secret = /secret: (whsec_\S+)/.exec(put.stdout)![1];
    const list = await cli(["subscriptions"]);
    expect(list.stdout).toMatch(/done\s+http:\/\/127\.0\.0\.1:\d+\/e\s+instance\.completed\s+ok/);
    const show = await cli(["subscriptions", "show", "done"]);
    expect(show.stdout).not.toContain(secret.slice(6));

    await api.post("/api/instances", { process: "quick" });
    await api.post("/api/tick");
    await api.post("/api/tick");
    const log = await cli(["deliveries", "done"]);
    expect(log.code, log.stderr).toBe(0);
    expect(log.stdout).toMatch(/evt_\d+\s+instance\.completed\s+delivered\s+1\s+200/);

    const dir = fixtureDir({
      "hook.yaml": "verifier: header\nsecret: a-shared-value-long-enough\nheader: X-Token\nstart: {process: quick}\n",
    });
    const hook = await cli(["hooks", "put", "ping", "-f", "hook.yaml"], dir);
    expect(hook.stdout).toBe("hook ping (created): senders POST to /api/hooks/ping\n");
    expect((await cli(["hooks"])).stdout).toMatch(/ping\s+\/api\/hooks\/ping\s+header\s+start quick/);
    expect((await cli(["hooks", "show", "ping"])).stdout).not.toContain("a-shared-value-long-enough");
    expect((await cli(["hooks", "delete", "ping"])).code).toBe(0);
    expect((await cli(["subscriptions", "delete", "done"])).code).toBe(0);
  });
});
