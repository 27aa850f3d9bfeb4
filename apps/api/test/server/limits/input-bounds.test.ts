// biome-ignore-all lint/suspicious/noTemplateCurlyInString: "${ }" is the definition language's interpolation
// Hostile input against the real server process (docs/limits.md): huge numbers, backtracking
// patterns, checker complexity, bodies at the limit, values grown without bound. Each ends in a
// 400 naming the limit or an instance failed with engine.limit, and /healthz keeps answering
// while the case runs. No timing assertions: /healthz must answer within a generous timeout (an
// unbounded case freezes the event loop for minutes), and the server runs with a 512 MB heap so
// unbounded memory fails here instead of eating the machine.
import {
  client,
  json,
  request,
  type SharedDatabase,
  sharedDatabase,
  startServer,
  startUpstream,
  type TestServer,
  type Upstream,
  type UpstreamRequest,
  settled,
  until,
} from "@baton/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deploy, deployAndStart, start } from "../../support/instances-fixtures.js";

const HEAP = { NODE_OPTIONS: "--max-old-space-size=512" };
let server: TestServer;
let api: ReturnType<typeof client>;
let upstream: Upstream;
const received: UpstreamRequest[] = [];
let database: SharedDatabase;

beforeAll(async () => {
  upstream = await startUpstream((req, res) => {
    received.push(req);
    json(res, 200, { ok: true });
  });
  // A database that outlives the process (on PGlite a data directory, not memory://), so the
  // restart case can reopen it.
  database = await sharedDatabase("baton-hostile-");
  server = await startServer({ args: ["--poll", "100"], env: HEAP, database: database.location });
  api = client(server.url);
}, 120_000);

afterAll(async () => {
  await server?.stop();
  await upstream?.close();
  await database?.dispose();
});

/** /healthz answers 200 within 10 s (a frozen event loop would not answer at all). */
async function expectHealthy(s: TestServer = server): Promise<void> {
  const res = await fetch(new URL("/healthz", s.url), { signal: AbortSignal.timeout(10_000) });
  expect(res.status).toBe(200);
}

/** Runs `hostile` and probes /healthz while it is in flight, then once more after it. */
async function whileHealthy<T>(hostile: Promise<T>): Promise<T> {
  await expectHealthy();
  const result = await hostile;
  await expectHealthy();
  return result;
}

const register = (def: object) => deploy(api, def);

async function run(process: string, input?: unknown): Promise<Record<string, unknown>> {
  const { id } = await start(api, input === undefined ? { process } : { process, input });
  return whileHealthy(settled(api, id));
}

describe("1. number rendering", () => {
  it("refuses an input number beyond the float64 range with a 400 naming the field", async () => {
    await register({
      name: "hostile_qty",
      input_schema: { type: "object", properties: { qty: { type: "integer", minimum: 1 } }, required: ["qty"] },
      tasks: [{ id: "t", output: "${input.qty}" }],
    });
    const res = await whileHealthy(
      request(server.url, "POST", "/api/instances", '{"process": "hostile_qty", "input": {"qty": 1e40000000}}'),
    );
    expect(res.status, res.text).toBe(400);
    expect(res.body.fields).toEqual([
      {
        path: "input.qty",
        message:
          "the number 1e40000000 is out of range: numbers must lie within ±1.7976931348623157e308 and, unless zero, be at least 5e-324 in magnitude",
      },
    ]);
  });

  it("renders a huge number in exponent form in join, interpolation and a fetch query", async () => {
    await register({
      name: "hostile_render",
      tasks: [
        {
          id: "call",
          action: { type: "fetch", method: "get", url: `${upstream.url}/render`, query: { n: "$: 1e40000000" } },
        },
        {
          id: "t",
          output: { joined: '$: len(join([1e100000000], ""))', text: "qty ${1e40000000}" },
        },
      ],
      output: "$: outputs.t",
    });
    const done = await run("hostile_render");
    expect(done.status, JSON.stringify(done)).toBe("completed");
    expect(done.output).toEqual({ joined: "1e+100000000".length, text: "qty 1e+40000000" });
    expect(received.find((r) => r.path.startsWith("/render"))?.path).toBe("/render?n=1e%2B40000000");
  });
});

describe("2. code patterns", () => {
  const withPatterns = (code: unknown) => [
    {
      name: "hostile_patterns",
      tasks: [
        {
          id: "call",
          action: { type: "fetch", url: `${upstream.url}/x` },
          on_error: [
            { code: `${"%a".repeat(120)}%b`, goto: "end" },
            { code: code, goto: "end" },
          ],
        },
      ],
    },
  ];

  it("checks a backtracking-prone pattern pair in linear time (validate answers, the server stays up)", async () => {
    // %a%a…%b against a run of a's: a backtracking regex tries every split of the run.
    const res = await whileHealthy(api.post("/api/definitions/validate", withPatterns(`${"a".repeat(250)}%`)));
    expect(res.status, res.text).toBe(200);
  });

  it("refuses a pattern longer than the limit with a 400 naming it", async () => {
    const res = await api.post("/api/definitions/validate", withPatterns(`${"%a".repeat(200)}%`));
    expect(res.status).toBe(400);
    expect(res.body.fields).toEqual([
      {
        path: "body[0].tasks[0].on_error[1].code",
        message: 'task "call": the code pattern is 401 characters long, more than the limit of 256 (docs/limits.md)',
      },
    ]);
  });
});

describe("3. checker complexity", () => {
  const chain = (n: number) => ({
    name: `hostile_chain_${n}`,
    tasks: Array.from({ length: n }, (_, i) => ({
      id: `t${i}`,
      action: { type: "fetch", url: `https://svc.example.com/${i}?prev=\${outputs.t${Math.max(0, i - 1)}.n ?? 0}` },
      output: { n: i > 0 ? `$: outputs.t${i - 1}.n + 1` : 0 },
      on_error: [{ code: ["pre.%", "http.5%"], retry: 2 }],
    })),
  });

  it("validates the largest definition allowed (10,000 chained tasks) while /healthz answers", async () => {
    const res = await whileHealthy(api.post("/api/definitions/validate", [chain(10_000)]));
    expect(res.status, res.text.slice(0, 300)).toBe(200);
    expect(res.body[0].tasks.t9999.output).toEqual({
      type: "object",
      properties: { n: { type: "integer" } },
      required: ["n"],
    });
  });

  it("refuses one task more than the limit with a 400 naming it", async () => {
    const res = await api.post("/api/definitions/validate", [
      { name: "hostile_many", tasks: Array.from({ length: 10_001 }, (_, i) => ({ id: `t${i}` })) },
    ]);
    expect(res.status).toBe(400);
    expect(res.body.fields[0].path).toBe("body[0].tasks");
    expect(res.body.fields[0].message).toContain("10001 tasks, more than the limit of 10000");
  });

  it("refuses an output type that doubles with every task instead of writing it out", async () => {
    const tasks = Array.from({ length: 60 }, (_, i) => ({
      id: `t${i}`,
      output: i === 0 ? { v: 1 } : { a: `$: outputs.t${i - 1}`, b: `$: outputs.t${i - 1}` },
    }));
    const res = await whileHealthy(api.post("/api/definitions/validate", [{ name: "hostile_double", tasks }]));
    expect(res.status).toBe(400);
    expect(res.body.fields[0].message).toContain("schema nodes or 128 levels, docs/limits.md");
  });
});

describe("3b. the largest definition, read and run by read and operate callers", () => {
  // 10,000 tasks (2.8 MB stored): an external wait, then a chain of outputs. Reading, comparing,
  // upgrading and documenting it parse or write it out whole, off the event loop
  // (docs/limits.md#the-checker-thread), so each answers while /healthz does.
  const maximal = (step: number) => ({
    name: "hostile_max",
    tasks: [
      { id: "t0", action: { type: "external" } },
      ...Array.from({ length: 9_999 }, (_, j) => ({
        id: `t${j + 1}`,
        output: { n: j === 0 ? 1 : `$: outputs.t${j}.n + ${step}` },
      })),
    ],
  });

  it("registers, reads, documents, compares, starts, shows and upgrades it while /healthz answers", async () => {
    for (const step of [1, 2]) {
      const put = await whileHealthy(api.put("/api/definitions", maximal(step)));
      expect(put.status, put.text.slice(0, 300)).toBe(200);
    }
    const stored = await whileHealthy(api.get("/api/definitions/hostile_max/versions/1"));
    expect(stored.status).toBe(200);
    expect(stored.body.version).toBe(1);
    expect(stored.body.definition.tasks).toHaveLength(10_000);
    expect(stored.body.definition.tasks[9_999]).toMatchObject({ id: "t9999", output: { n: "$: outputs.t9998.n + 1" } });

    const openapi = await whileHealthy(api.get("/api/definitions/hostile_max/openapi.json"));
    expect(openapi.status).toBe(200);
    expect(openapi.body.info.title).toBe("Baton API: process hostile_max");

    const compat = await whileHealthy(
      api.post("/api/definitions/compat", {
        from: { versions: { hostile_max: 1 } },
        to: { versions: { hostile_max: 2 } },
      }),
    );
    expect(compat.status, compat.text.slice(0, 300)).toBe(200);
    expect(compat.body.processes[0]).toMatchObject({
      name: "hostile_max",
      from: 1,
      to: 2,
      upgrade: { compatible: true },
    });

    const started = await whileHealthy(api.post("/api/instances", { process: "hostile_max", version: 1 }));
    expect(started.status, started.text).toBe(200);
    const id: string = started.body.id;
    await until("the instance to wait on t0", async () => {
      const view = await api.get(`/api/instances/${id}/detail`);
      return view.body.phase === "external" ? view : undefined;
    });
    const shown = await whileHealthy(api.get(`/api/instances/${id}/detail`));
    expect(shown.status).toBe(200);
    expect(shown.body).toMatchObject({ task: "t0", phase: "external", version: 1 });

    const upgraded = await whileHealthy(api.post(`/api/instances/${id}/upgrade`, { from_version: 1, to_version: 2 }));
    expect(upgraded.status, upgraded.text).toBe(200);
    expect(upgraded.body).toMatchObject({ upgraded: true, moves: [{ instance_id: id, task: "t0", to_version: 2 }] });
  }, 300_000);
});

describe("3c. request bodies at the default limit", () => {
  it("starts an instance with an input just under the default --max-body while /healthz answers, and refuses one over it with 413", async () => {
    await register({ name: "hostile_input_size", input_schema: { type: "object" }, tasks: [{ id: "t", output: 1 }] });
    // About 250 KB of numbers: the costliest kind of body to parse exactly.
    const items = (n: number) => Array.from({ length: n }, (_, i) => ({ i, v: i * 1.25 }));
    const under = JSON.stringify({ process: "hostile_input_size", input: { items: items(10_000) } });
    expect(under.length).toBeLessThan(262_144);
    const started = await whileHealthy(request(server.url, "POST", "/api/instances", under));
    expect(started.status, started.text.slice(0, 300)).toBe(200);
    const over = JSON.stringify({ process: "hostile_input_size", input: { items: items(12_000) } });
    expect(over.length).toBeGreaterThan(262_144);
    const refused = await request(server.url, "POST", "/api/instances", over);
    expect(refused.status).toBe(413);
    expect(refused.body).toEqual({
      code: "invalid",
      error: "the request body is larger than the limit of 262144 bytes (--max-body, docs/limits.md)",
    });
  });
});

describe("4. unbounded values", () => {
  it("fails a nested map over a 900-element input with engine.limit, and a restart does not crash-loop on it", async () => {
    await register({
      name: "hostile_nested_map",
      input_schema: { type: "object", properties: { xs: { type: "array", items: { type: "integer" } } } },
      tasks: [
        {
          id: "t",
          output: {
            pairs: "$: map(input.xs ?? [], a => map(input.xs ?? [], b => map(input.xs ?? [], c => [a, b, c])))",
          },
        },
      ],
    });
    const xs = Array.from({ length: 900 }, (_, i) => i);
    const done = await run("hostile_nested_map", { xs });
    expect(done.status).toBe("failed");
    expect(done.error_code).toBe("engine.limit");
    expect(done.error_message).toMatch(/--limit-(eval-steps|value-bytes)\)$/);

    // The instance is settled, so a restarted server has nothing to re-claim; it must come up
    // and stay up (the old server ran out of memory on every start-up).
    await server.kill();
    server = await startServer({ args: ["--poll", "100"], env: HEAP, database: database.location });
    api = client(server.url);
    await expectHealthy();
    expect((await api.get(`/api/instances/${done.id}`)).body.status).toBe("failed");
    await new Promise((r) => setTimeout(r, 1000));
    await expectHealthy();
  });

  it("fails a routing loop that doubles a string when the string passes the value size limit", async () => {
    await register({
      name: "hostile_doubling",
      tasks: [
        { id: "seed", output: "x" },
        {
          id: "double",
          output: '$: (self.previous ?? outputs.seed ?? "") + (self.previous ?? outputs.seed ?? "")',
          switch: [{ case: "len(self.output ?? '') > 0", goto: "$double" }, { goto: "end" }],
        },
      ],
    });
    const done = await run("hostile_doubling");
    expect(done.status).toBe("failed");
    expect(done.error_code).toBe("engine.limit");
    expect(done.error_message).toContain("more than the value size limit of 8388608 (--limit-value-bytes)");
  });
});

describe("4b. values nested by a loop", () => {
  it("fails a loop that nests its output one level per visit when it passes the value depth limit", async () => {
    await register({
      name: "hostile_nesting",
      tasks: [
        {
          id: "wrap",
          output: "$: [self.previous]",
          switch: [{ case: "len(self.output) > 0", goto: "$wrap" }, { goto: "end" }],
        },
      ],
    });
    const done = await run("hostile_nesting");
    expect(done.status).toBe("failed");
    expect(done.error_code).toBe("engine.limit");
    expect(done.error_message).toContain(
      "nested more than 128 levels deep (the value depth limit) (--limit-value-depth)",
    );
  });
});

describe("the state written by one advance", () => {
  let small: TestServer;
  afterAll(async () => {
    await small?.stop();
  });

  it("fails the instance with engine.limit when the state passes --limit-state-bytes, keeping the previous state", async () => {
    small = await startServer({ args: ["--poll", "100", "--limit-state-bytes", "100000"], env: HEAP });
    const smallApi = client(small.url);
    const tasks = Array.from({ length: 20 }, (_, i) => ({ id: `t${i}`, output: `$: "${"y".repeat(10_000)}"` }));
    const id = await deployAndStart(smallApi, { name: "hostile_state", tasks });
    const end = Date.now() + 60_000;
    let body: Record<string, any> = {};
    while (Date.now() < end) {
      body = (await smallApi.get(`/api/instances/${id}/detail`)).body;
      if (body.status !== "running" && body.status !== "pending") break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(body.status).toBe("failed");
    expect(body.error_code).toBe("engine.limit");
    expect(body.error_message).toMatch(
      /^task "t\d+": engine\.limit: the state this advance would write is \d+ characters as JSON, more than the limit of 100000 \(--limit-state-bytes\)$/,
    );
    expect(body.state.outputs, "nothing of the oversized advance is stored").toEqual({});
    const res = await fetch(new URL("/healthz", small.url), { signal: AbortSignal.timeout(10_000) });
    expect(res.status).toBe(200);
  });
});
