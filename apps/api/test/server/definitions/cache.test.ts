// The parsed and compiled definitions a server keeps are bounded by
// --limit-definition-cache (docs/limits.md#cached-definitions). At 0 nothing is kept: every
// start, advance and read parses and compiles its version again, with the same results.
import { client, startServer, type TestServer } from "@baton/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Api, deploy, start } from "../../support/instances-fixtures.js";

let server: TestServer;
let api: Api;

beforeAll(async () => {
  server = await startServer({ args: ["--poll", "0", "--limit-definition-cache", "0"] });
  api = client(server.url);
  await deploy(api, {
    name: "paced",
    input_schema: {
      type: "object",
      properties: { ms: { type: "integer" }, n: { type: "integer" } },
      required: ["ms", "n"],
    },
    tasks: [
      { id: "pause", action: { type: "delay", for: "$: input.ms" } },
      { id: "sum", output: { n: "$: input.n + 1" } },
    ],
    output: { n: "$: outputs.sum.n" },
  });
  await deploy(api, {
    name: "plain",
    input_schema: { type: "object", properties: { tag: { type: "string" } }, required: ["tag"] },
    tasks: [{ id: "only", output: { tag: "$: input.tag" } }],
    output: "$: outputs.only",
  });
}, 120_000);

afterAll(async () => {
  await server?.stop();
});

describe("a server that keeps no parsed or compiled definition", () => {
  it("runs every instance of two processes started in turn to the same results", async () => {
    const started: Array<{ id: string; expected: object }> = [];
    for (let i = 0; i < 3; i++) {
      started.push({
        id: (await start(api, { process: "paced", input: { ms: 0, n: i } })).id,
        expected: { n: i + 1 },
      });
      started.push({
        id: (await start(api, { process: "plain", input: { tag: `t${i}` } })).id,
        expected: { tag: `t${i}` },
      });
    }
    const tick = await api.post("/api/tick", {});
    expect(tick.status, tick.text).toBe(200);
    for (const { id, expected } of started) {
      const view = await api.get(`/api/instances/${id}`);
      expect(view.body, id).toMatchObject({ status: "completed", output: expected });
    }
    const stored = await api.get("/api/definitions/paced/versions/1");
    expect(stored.status).toBe(200);
    expect(stored.body.definition.tasks.map((t: { id: string }) => t.id)).toEqual(["pause", "sum"]);
  });
});
