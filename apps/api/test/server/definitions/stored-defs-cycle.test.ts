import { stringifyJson } from "@baton/expr";
import { canonicalJson, declaredRaises, decodeDefinition, definitionHash, formatProblems } from "@baton/model";
import { client, type SharedDatabase, sharedDatabase, startServer, type TestServer } from "@baton/testkit";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { freshInstanceRow, freshState } from "../../../src/engine/starts/fresh-row.js";
import { openDatabase } from "../../../src/storage/db.js";
import { definitions, instances } from "../../../src/storage/schema/index.js";
import type { Api } from "../../support/instances-fixtures.js";

// Definitions stored before registration refused `$defs` cycles (docs/limits.md#defs-cycles-in-stored-definitions):
// `$defs` that lead back to themselves through $ref, anyOf or oneOf alone. The rows are written
// straight into the table, as an older server stored them; every path that uses such a version
// answers a 400 naming the process, the version and the cycle, or fails the instance with
// engine.definition (engine.spawn for a child), never 500.
vi.setConfig({ testTimeout: 120_000 });

const T0 = Date.UTC(2026, 0, 2, 10, 0, 0);
const SELF = { a: { $ref: "#/$defs/a" } };
const PAIR = { a: { $ref: "#/$defs/b" }, b: { $ref: "#/$defs/a" } };
const BRANCH = { a: { anyOf: [{ type: "string" }, { $ref: "#/$defs/a" }] } };

/** A process whose input and whose external task's result both refer to `$defs` "a", a string. */
const fixed = (name: string) => ({
  name,
  $defs: { a: { type: "string" } },
  input_schema: { type: "object", properties: { x: { $ref: "#/$defs/a" } } },
  tasks: [
    {
      id: "ask",
      action: { type: "external", result_schema: { type: "object", properties: { y: { $ref: "#/$defs/a" } } } },
    },
  ],
});

/** The row an older server stored for `fixed(name)` with these `$defs` instead: its canonical form, as registration writes it. */
function stored(name: string, version: number, defs?: object) {
  const decoded = decodeDefinition(fixed(name));
  if (!decoded.ok) throw new Error(formatProblems(decoded.problems));
  const definition = defs === undefined ? decoded.definition : { ...decoded.definition, $defs: defs as never };
  return {
    name,
    version,
    definition: canonicalJson(definition),
    hash: definitionHash(definition),
    raises: JSON.stringify(declaredRaises(definition)),
    actor: null,
    createdAt: T0,
  };
}

const ON_PAIR = "019a3c1e-0000-7000-8000-000000000001";
const ON_LATE = "019a3c1e-0000-7000-8000-000000000002";
const ON_SELF = "019a3c1e-0000-7000-8000-000000000003";
const seeded = (id: string, process: string, due = false) => ({
  ...freshInstanceRow({ id, process, version: 1, task: "ask", state: stringifyJson(freshState({})), now: T0 }),
  // Only a due row is advanced, and only when a test ticks (--poll 0).
  ...(due ? {} : { wakeAt: null }),
});

let server: TestServer;
let api: Api;
let database: SharedDatabase;

beforeAll(async () => {
  database = await sharedDatabase("baton-defs-cycle-");
  const db = await openDatabase(database.connection);
  try {
    await db.db
      .insert(definitions)
      .values([
        stored("self", 1, SELF),
        stored("pair", 1, PAIR),
        stored("branch", 1, BRANCH),
        stored("late", 1),
        stored("late", 2, PAIR),
      ]);
    await db.db
      .insert(instances)
      .values([seeded(ON_PAIR, "pair"), seeded(ON_LATE, "late"), seeded(ON_SELF, "self", true)]);
  } finally {
    await db.close();
  }
  server = await startServer({ database: database.location, args: ["--poll", "0"] });
  api = client(server.url);
});
afterAll(async () => {
  await server?.stop();
  await database?.dispose();
});

describe("a stored definition with a $defs cycle", () => {
  it.each([
    ["self", '"a" → "a"'],
    ["pair", '"a" → "b" → "a"'],
    ["branch", '"a" → "a"'],
  ])("refuses a start of %s with a 400 naming the process, the cycle and the remedy", async (name, cycle) => {
    const res = await api.post("/api/instances", { process: name, input: { x: "1" } });
    expect(res.status, res.text).toBe(400);
    expect(res.body.code).toBe("invalid");
    expect(res.body.error).toContain(`process "${name}" version 1 cannot be used: its $defs ${cycle}`);
    expect(res.body.error).toContain("register a fixed version");
  });

  it("still shows the stored version and its OpenAPI document", async () => {
    const res = await api.get("/api/definitions/pair/versions/1");
    expect(res.status, res.text).toBe(200);
    expect(res.body.definition.$defs).toEqual(PAIR);
    const doc = await api.get("/api/definitions/self/openapi.json");
    expect(doc.status, doc.text).toBe(200);
  });

  it("refuses a signal to an instance on it with a 400", async () => {
    const res = await api.post("/api/external-tasks/signal", { instance_id: ON_PAIR, task: "ask", result: { y: "1" } });
    expect(res.status, res.text).toBe(400);
    expect(res.body.code).toBe("invalid");
    expect(res.body.error).toContain('process "pair" version 1 cannot be used: its $defs "a" → "b" → "a"');
  });

  it("refuses to upgrade onto it, and compat answers 400 for it", async () => {
    const up = await api.post(`/api/instances/${ON_LATE}/upgrade`, { from_version: 1, to_version: 2 });
    expect(up.status, up.text).toBe(400);
    expect(up.body.error).toContain('process "late" version 2 cannot be used: its $defs "a" → "b" → "a"');
    const compat = await api.post("/api/definitions/compat", {
      from: { versions: { late: 1 } },
      to: { versions: { late: 2 } },
    });
    expect(compat.status, compat.text).toBe(400);
    expect(compat.body.error).toContain('process "late" version 2 cannot be used: its $defs "a" → "b" → "a"');
  });

  it("fails an instance on it at its next advance with engine.definition", async () => {
    expect((await api.post("/api/tick", {})).status).toBe(200);
    const view = (await api.get(`/api/instances/${ON_SELF}`)).body;
    expect(view.status).toBe("failed");
    expect(view.error_code).toBe("engine.definition");
    expect(view.error_message).toContain('process "self" version 1 cannot be used: its $defs "a" → "a"');
  });

  it("fails a parent that spawns it with engine.spawn, and a fixed version runs", async () => {
    const parent = {
      name: "parent",
      tasks: [{ id: "spawn", action: { type: "child", name: "branch", input: { x: "1" } } }],
    };
    const put = await api.put("/api/definitions", parent);
    expect(put.status, put.text).toBe(200);
    const started = await api.post("/api/instances", { process: "parent" });
    expect(started.status, started.text).toBe(200);
    let view = (await api.get(`/api/instances/${started.body.id}`)).body;
    for (let i = 0; i < 10 && view.status === "running"; i++) {
      await api.post("/api/tick", {});
      view = (await api.get(`/api/instances/${started.body.id}`)).body;
    }
    expect(view.status).toBe("failed");
    expect(view.error_code).toBe("engine.spawn");
    expect(view.error_message).toContain('process "branch" version 1 cannot be used: its $defs "a" → "a"');

    expect((await api.put("/api/definitions", fixed("branch"))).body.version).toBe(2);
    const again = await api.post("/api/instances", { process: "parent" });
    expect(again.status, again.text).toBe(200);
    let child: any[] = [];
    for (let i = 0; i < 10 && child.length === 0; i++) {
      await api.post("/api/tick", {});
      child = (await api.get("/api/instances?process=branch&children=true")).body.items;
    }
    expect(child).toMatchObject([{ process: "branch", version: 2, status: "running", parent_id: again.body.id }]);
  });

  it("upgrades an instance on it onto a fixed version, which then takes the signal", async () => {
    expect((await api.put("/api/definitions", fixed("pair"))).body.version).toBe(2);
    for (const [from, to] of [
      [1, 2],
      [2, 1],
    ]) {
      const compat = await api.post("/api/definitions/compat", {
        from: { versions: { pair: from } },
        to: { versions: { pair: to } },
      });
      expect(compat.status, compat.text).toBe(to === 2 ? 200 : 400);
    }
    const up = await api.post(`/api/instances/${ON_PAIR}/upgrade`, { from_version: 1, to_version: 2 });
    expect(up.status, up.text).toBe(200);
    const res = await api.post("/api/external-tasks/signal", { instance_id: ON_PAIR, task: "ask", result: { y: "1" } });
    expect(res.status, res.text).toBe(200);
  });
});
