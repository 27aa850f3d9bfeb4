// `baton run` starts exactly one instance when the answer to its start is lost (docs/cli.md):
// it sends an Idempotency-Key and retries the start with the same key, so the server answers
// the instance the first attempt already started. A proxy in front of the real server drops
// the first answer after the server handled the request, or answers 503 once.
import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { client, startServer, type TestServer } from "@baton/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { baton, isolatedEnv } from "./support/baton.js";
import { deployFiles, GREET_YAML } from "./support/fixtures.js";

let server: TestServer;
let proxy: Server;
let proxyUrl: string;
/** What the proxy does to the next POST /api/instances: drop its answer, answer 503, or pass it. */
let nextStart: "drop" | "unavailable" | "pass" = "pass";
const startKeys: string[] = [];

beforeAll(async () => {
  server = await startServer({ args: ["--poll", "0"] });
  const target = new URL(server.url);
  proxy = createServer((req, res) => {
    const isStart = req.method === "POST" && req.url === "/api/instances";
    if (isStart) startKeys.push(String(req.headers["idempotency-key"]));
    const mode = isStart ? nextStart : "pass";
    if (isStart) nextStart = "pass";
    if (mode === "unavailable") {
      req.resume();
      res.writeHead(503, { "content-type": "application/json", "retry-after": "1" });
      res.end(JSON.stringify({ code: "unavailable", error: "the database is unreachable" }));
      return;
    }
    const upstream = request(
      { host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers },
      (answer) => {
        if (mode === "drop") {
          // The server started the instance; its answer never reaches the client.
          answer.resume();
          answer.on("end", () => req.socket.destroy());
          return;
        }
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    req.pipe(upstream);
  });
  await new Promise<void>((r) => proxy.listen(0, "127.0.0.1", () => r()));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  const env = isolatedEnv({ BATON_SERVER: server.url }).env;
  await deployFiles(env, { "greet.yaml": GREET_YAML });
}, 60_000);

afterAll(async () => {
  await new Promise((r) => proxy?.close(r));
  await server?.stop();
});

async function greetIds(): Promise<string[]> {
  const res = await client(server.url).get("/api/instances?process=greet&limit=100");
  return (res.body.items as Array<{ id: string }>).map((i) => i.id);
}

describe("baton run when the start's answer is lost", () => {
  it("retries with the same Idempotency-Key and starts exactly one instance", async () => {
    const env = isolatedEnv({ BATON_SERVER: proxyUrl }).env;
    const before = await greetIds();
    nextStart = "drop";
    startKeys.length = 0;
    const run = await baton(["run", "greet", "--set", "who=Ann"], { env });
    expect(run.code, run.stderr).toBe(0);
    const after = await greetIds();
    const started = after.filter((id) => !before.includes(id));
    expect(started, "one instance, though the server saw the start twice").toHaveLength(1);
    expect(run.stdout.trim()).toBe(started[0]);
    expect(startKeys).toHaveLength(2);
    expect(startKeys[0]).toMatch(/^[\x21-\x7e]{1,255}$/);
    expect(startKeys[1], "the retry carries the same key").toBe(startKeys[0]);
    expect(run.stderr).toMatch(/retrying .* with the same Idempotency-Key/);
  });

  it("retries a 503 answer (database restarting)", async () => {
    const env = isolatedEnv({ BATON_SERVER: proxyUrl }).env;
    const before = await greetIds();
    nextStart = "unavailable";
    const run = await baton(["run", "greet", "--set", "who=Bo"], { env });
    expect(run.code, run.stderr).toBe(0);
    expect((await greetIds()).filter((id) => !before.includes(id))).toEqual([run.stdout.trim()]);
  });

  it("a fresh key per run: two runs are two instances", async () => {
    const env = isolatedEnv({ BATON_SERVER: proxyUrl }).env;
    const a = await baton(["run", "greet", "--set", "who=Cy"], { env });
    const b = await baton(["run", "greet", "--set", "who=Cy"], { env });
    expect(a.stdout.trim()).not.toBe(b.stdout.trim());
  });
});
