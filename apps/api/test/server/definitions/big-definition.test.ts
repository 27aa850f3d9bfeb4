// biome-ignore-all lint/suspicious/noTemplateCurlyInString: "${ }" is the definition language's interpolation
// The first start and first advance of the largest definition allowed (10,000 fetch tasks with
// templates, 2.8 MB stored) keep the event loop turning: compiling yields between slices
// (docs/limits.md#compiling-a-stored-definition) and a version's text is read once
// (docs/limits.md#reading-a-large-stored-definition). /healthz is probed back to back for the
// whole case, each probe with the generous timeout of limits/input-bounds.test.ts: a frozen loop
// would leave one unanswered. No timing assertion: the unit tests assert the yields.
import { client, pollHealth, startServer, type TestServer, until } from "@baton/testkit";
import { afterAll, beforeAll, expect, it } from "vitest";
import { deploy } from "../../support/instances-fixtures.js";

let server: TestServer;
let api: ReturnType<typeof client>;

beforeAll(async () => {
  server = await startServer({ args: ["--poll", "100"], env: { NODE_OPTIONS: "--max-old-space-size=512" } });
  api = client(server.url);
}, 120_000);

afterAll(async () => {
  await server?.stop();
});

/** 10,000 tasks: an external wait whose result types the chain, then fetch tasks with templates. */
const biggest = {
  name: "big_definition",
  tasks: [
    {
      id: "t0",
      action: {
        type: "external",
        result_schema: { type: "object", properties: { n: { type: "integer" } }, required: ["n"] },
      },
    },
    ...Array.from({ length: 9_999 }, (_, j) => {
      const i = j + 1;
      return {
        id: `t${i}`,
        action: {
          type: "fetch",
          url: `https://svc.example.com/step/${i}?prev=\${outputs.t${i - 1}.n ?? 0}`,
          body: { i, prev: `$: outputs.t${i - 1}` },
        },
        output: { n: `$: outputs.t${i - 1}.n + 1` },
        on_error: [
          { code: ["pre.%", "http.5%"], retry: 2 },
          ...(i < 9_999 ? [{ code: "http.4%", goto: "$t9999" }] : []),
        ],
      };
    }),
  ],
  output: { last: "$: outputs.t9999.n" },
};

it("starts, runs, reads and shows the largest definition while /healthz answers every probe", async () => {
  await deploy(api, biggest);
  const health = pollHealth(server.url);

  const started = await api.post("/api/instances", { process: "big_definition", version: 1 });
  expect(started.status, started.text).toBe(200);
  const id: string = started.body.id;
  // The first advance compiles the definition, then parks on t0.
  await until("the first advance to park on t0", async () => {
    const view = await api.get(`/api/instances/${id}/detail`);
    return view.body.phase === "external" ? view : undefined;
  });
  const again = await api.post("/api/instances", { process: "big_definition", version: 1 });
  expect(again.status, again.text).toBe(200);
  for (let read = 0; read < 2; read++) {
    const stored = await api.get("/api/definitions/big_definition/versions/1");
    expect(stored.status).toBe(200);
    expect(stored.body.definition.tasks).toHaveLength(10_000);
    expect(stored.body.definition.tasks[9_999].id).toBe("t9999");
  }
  const shown = await api.get(`/api/instances/${id}/detail`);
  expect(shown.body).toMatchObject({ task: "t0", phase: "external", version: 1 });
  const listed = await api.get("/api/instances?process=big_definition");
  expect(listed.status).toBe(200);
  expect(listed.body.items).toHaveLength(2);

  const { answered, failures } = await health.stop();
  expect(failures).toEqual([]);
  expect(answered).toBeGreaterThan(0);
}, 300_000);
