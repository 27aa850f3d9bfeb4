import { fileURLToPath } from "node:url";
import { startServer, type TestServer } from "@baton/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BatonRun, baton, isolatedEnv } from "./support/baton.js";
import { fixtureDir, GREET_YAML } from "./support/fixtures.js";

let server: TestServer;
let env: Record<string, string>;
const cli = (args: string[], cwd?: string): Promise<BatonRun> => baton(args, { env, cwd });

const ORDERS_V1 = `name: orders
tasks:
  - id: take
    output: {taken: true}
`;
const ORDERS_V2 = `name: orders
tasks:
  - id: take
    output: {taken: true, big: 12345678901234567890123}
`;
const BILLING_JSON = JSON.stringify({ name: "billing", tasks: [{ id: "bill", output: { billed: true } }] });

beforeAll(async () => {
  server = await startServer({ args: ["--poll", "0"] });
  env = isolatedEnv({ BATON_SERVER: server.url }).env;
});

afterAll(async () => {
  await server?.stop();
});

describe("deploy", () => {
  it("puts every definition of files and globs, then reports unchanged ones", async () => {
    const dir = fixtureDir({ "greet.yaml": GREET_YAML, "orders.yaml": ORDERS_V1, "billing.json": BILLING_JSON });
    const first = await cli(["deploy", "*.yaml", "billing.json"], dir);
    expect(first).toEqual({ code: 0, stdout: "greet v1 (new)\norders v1 (new)\nbilling v1 (new)\n", stderr: "" });
    const again = await cli(["deploy", "greet.yaml", "--json"], dir);
    expect(JSON.parse(again.stdout), "--json prints the array of PUT responses").toEqual([
      { name: "greet", saved: false, version: 1 },
    ]);
  });

  it("deploys a multi-document YAML as one atomic batch on a channel", async () => {
    const dir = fixtureDir({ "both.yaml": `${ORDERS_V2}---\n${GREET_YAML}` });
    const run = await cli(["deploy", "both.yaml", "--channel", "staging"], dir);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe("orders v2 (new, first on staging)\ngreet v1 (unchanged, first on staging)\n");
    const json = await cli(["deploy", "both.yaml", "-c", "staging", "--json"], dir);
    const results = JSON.parse(json.stdout);
    expect(results.map((r: { name: string; version: number; saved: boolean }) => [r.name, r.version, r.saved])).toEqual(
      [
        ["orders", 2, false],
        ["greet", 1, false],
      ],
    );
    expect(results[0]).toHaveProperty("previous");
  });

  it("keeps big numbers exact from YAML to the stored definition", async () => {
    const got = await cli(["definitions", "get", "orders@2", "--format", "json"]);
    expect(got.stdout).toContain('"big": 12345678901234567890123');
  });

  it("refuses an invalid definition naming file, process, task and field, exit 1", async () => {
    const dir = fixtureDir({ "bad.yaml": "name: broken\ntasks:\n  - id: a\n    output: {x: 1}\n    retires: 3\n" });
    const run = await cli(["deploy", "bad.yaml"], dir);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe("");
    expect(run.stderr).toMatch(
      /^error: invalid: 1 problem in the definitions\n {2}bad\.yaml, process broken, task a, field tasks\[0\][^\n]*retires[^\n]*\n$/,
    );
  });
});

describe("the repository's examples", () => {
  const examples = fileURLToPath(new URL("../../../examples", import.meta.url));

  it("validate and deploy as one batch, child references included", async () => {
    const validate = await cli(["validate", examples, "--json"]);
    expect(validate.code, validate.stderr).toBe(0);
    const names = JSON.parse(validate.stdout).map((result: { process: string }) => result.process);
    expect(names.length).toBeGreaterThan(0);
    const deploy = await cli(["deploy", examples, "--channel", "examples"]);
    expect(deploy.code, deploy.stderr).toBe(0);
    expect(deploy.stdout.trim().split("\n")).toEqual(
      names.map((name: string) => `${name} v1 (new, first on examples)`),
    );
    expect((await cli(["channels", "status", "examples"])).stdout).toBe("examples: no stale child references\n");
  });
});

describe("validate", () => {
  it("prints ok per process and the inferred schemas, saving nothing", async () => {
    const dir = fixtureDir({ "greet.yaml": GREET_YAML.replace("name: greet", "name: greet-draft") });
    const run = await cli(["validate", "greet.yaml", "--schemas"], dir);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^ok {2}greet-draft \(would be v1\)\n/);
    expect(run.stdout).toContain("    input: {");
    expect(run.stdout).toContain("    task hello");
    const json = JSON.parse((await cli(["validate", "greet.yaml", "--json"], dir)).stdout);
    expect(json[0]).toMatchObject({ process: "greet-draft", version: 1 });
    expect(Object.keys(json[0])).toEqual(
      expect.arrayContaining(["process", "version", "process_input", "process_output", "tasks"]),
    );
    expect((await cli(["definitions", "greet-draft"])).stdout, "validate saves nothing").toBe(
      "no definitions named greet-draft\n",
    );
  });

  it("lists every problem with its file, process and task, exit 1", async () => {
    const dir = fixtureDir({
      "a.yaml": `${GREET_YAML}---\nname: second\ntasks:\n  - id: first\n    output: {a: 1}\n  - id: oops\n    switch: "$nowhere"\n`,
    });
    const run = await cli(["validate", "a.yaml"], dir);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^error: invalid: \d+ problems? in the definitions\n/);
    expect(run.stderr).toMatch(/\n {2}a\.yaml \(document 2\), process second, task oops, field tasks\[1\]/);
    expect(run.stderr).not.toMatch(/document 1/);
  });
});

describe("definitions", () => {
  it("lists versions newest first, for every process or one", async () => {
    const all = await cli(["definitions"]);
    expect(all.stdout.split("\n")[0]).toMatch(/^PROCESS\s+VERSION\s+CREATED/);
    const orders = await cli(["definitions", "orders", "--json"]);
    const body = JSON.parse(orders.stdout);
    expect(body.items.map((item: { version: number }) => item.version)).toEqual([2, 1]);
    expect(body.page).toMatchObject({ size: 20 });
  });

  it("follows pages with --all", async () => {
    const paged = JSON.parse((await cli(["definitions", "--limit", "1", "--all", "--json"])).stdout);
    expect(paged.items.length).toBeGreaterThanOrEqual(4);
    const single = await cli(["definitions", "--limit", "1"]);
    expect(single.stderr).toMatch(/more not shown; use --all/);
  });

  it("gets a stored definition as YAML that deploys again unchanged", async () => {
    const yaml = await cli(["definitions", "get", "greet"]);
    expect(yaml.code, yaml.stderr).toBe(0);
    expect(yaml.stdout).toMatch(/^name: greet$/m);
    const dir = fixtureDir({ "roundtrip.yaml": yaml.stdout });
    expect((await cli(["deploy", "roundtrip.yaml"], dir)).stdout).toBe("greet v1 (unchanged)\n");
    const json = JSON.parse((await cli(["definitions", "get", "orders@1", "--json"])).stdout);
    expect(json).toMatchObject({ name: "orders", version: 1, definition: { name: "orders" } });
  });

  it("reads PROCESS@CHANNEL as the version the channel points at", async () => {
    expect(JSON.parse((await cli(["definitions", "get", "orders@staging", "--json"])).stdout)).toMatchObject({
      version: 2,
    });
    const missing = await cli(["definitions", "get", "orders@canary"]);
    expect(missing).toEqual({
      code: 4,
      stdout: "",
      stderr: "error: process orders has no channel canary (its channels: staging)\n",
    });
  });

  it("exits 4 for an unknown process or version", async () => {
    const run = await cli(["definitions", "get", "orders@99"]);
    expect(run.code).toBe(4);
    expect(run.stderr).toMatch(/^error: not_found: /);
  });
});

describe("channels and promote", () => {
  it("sets, lists, promotes and deletes channel pointers", async () => {
    expect((await cli(["channels", "set", "orders", "production", "1"])).stdout).toBe("orders: production → v1\n");
    const list = await cli(["channels", "orders", "--json"]);
    const entries = JSON.parse(list.stdout).items.map(
      (e: { channel: string; version: number }) => `${e.channel}=${e.version}`,
    );
    expect(entries.sort()).toEqual(["production=1", "staging=2"]);

    const promote = await cli(["promote", "staging", "production", "--process", "orders"]);
    expect(promote).toMatchObject({ code: 0, stdout: "orders v2 (was v1 on production)\n" });
    const promoteJson = JSON.parse((await cli(["promote", "staging", "production", "--json"])).stdout);
    expect(promoteJson).toMatchObject({ from: "staging", to: "production" });
    expect(Array.isArray(promoteJson.promoted)).toBe(true);

    expect((await cli(["channels", "status", "production"])).stdout).toBe("production: no stale child references\n");
    expect(JSON.parse((await cli(["channels", "status", "production", "--json"])).stdout)).toEqual({ items: [] });
    expect(JSON.parse((await cli(["channels", "set", "greet", "canary", "1", "--json"])).stdout)).toEqual({
      channel: "canary",
      name: "greet",
      version: 1,
    });
    expect((await cli(["channels", "delete", "orders", "production"])).stdout).toBe(
      "orders: deleted channel production\n",
    );
    expect(JSON.parse((await cli(["channels", "delete", "orders", "production", "--json"])).stdout)).toEqual({
      deleted: false,
    });
  });

  it("exits 4 when pointing a channel at a version that does not exist", async () => {
    const run = await cli(["channels", "set", "orders", "production", "42"]);
    expect(run.code).toBe(4);
    expect(run.stderr).toMatch(/^error: not_found: /);
  });
});

describe("compat", () => {
  it("prints the per-process report and exits 0 when it passes", async () => {
    const run = await cli(["compat", "--from", "orders@1", "--to", "orders@2"]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain("orders v1 → v2 (compared)");
    expect(run.stdout).toMatch(/upgrade: +compatible/);
    expect(run.stdout).toMatch(/contract: +compatible/);
    expect(run.stdout, "the changed task is listed").toContain("tasks.take");
    expect(run.stdout.trimEnd().split("\n").at(-1)).toBe("compat passes");
    const json = JSON.parse((await cli(["compat", "--from", "orders@1", "--to", "orders@2", "--json"])).stdout);
    expect(json).toMatchObject({
      compatible: true,
      passes: true,
      processes: [{ name: "orders", status: "compared", from: 1, to: 2 }],
    });
  });

  it("exits 1 with the gating issues when the contract breaks, and 0 with --ignore contract", async () => {
    const dir = fixtureDir({ "orders.yaml": `${ORDERS_V1}output: {total: 1}\n` });
    const run = await cli(["compat", "--from", "orders@2", "--to", "orders.yaml"], dir);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain("orders v2 → (files) (compared)");
    expect(run.stdout).toMatch(/contract: +incompatible/);
    expect(run.stdout).toContain("compat does not pass");
    expect(run.stderr).toMatch(/^error: compat does not pass \(\d+ gating issues?\)\n$/);
    const ignored = await cli(["compat", "--from", "orders@2", "--to", "orders.yaml", "--ignore", "contract"], dir);
    expect(ignored.code, ignored.stderr).toBe(0);
    expect(ignored.stdout).toContain("compat passes (ignored members are not compatible)");
  });

  it("exits 4 for a version that does not exist", async () => {
    const run = await cli(["compat", "--from", "orders@41", "--to", "orders@2"]);
    expect(run.code).toBe(4);
    expect(run.stderr).toMatch(/^error: not_found: /);
  });
});

describe("openapi", () => {
  it("prints the server's document and a per-process one", async () => {
    const doc = JSON.parse((await cli(["openapi"])).stdout);
    expect(doc).toMatchObject({ openapi: "3.1.0", info: { version: "1.0.0" }, servers: [{ url: "/api" }] });
    const greet = await cli(["openapi", "greet"]);
    expect(greet.code, greet.stderr).toBe(0);
    expect(greet.stdout).toContain('"who"');
    expect((await cli(["openapi", "nope"])).code).toBe(4);
  });
});

describe("health", () => {
  it("reports the probe; --json is the API's body", async () => {
    expect((await cli(["health"])).stdout).toMatch(/^ok: worker .*, database (pglite|postgres)/);
    expect(Object.keys(JSON.parse((await cli(["health", "--json"])).stdout)).sort()).toEqual([
      "database",
      "lease_age_ms",
      "manual_tick",
      "status",
      "worker_id",
    ]);
  });

  it("reports the liveness probe with --live and the readiness probe with --ready", async () => {
    expect((await cli(["health", "--live"])).stdout).toMatch(/^ok: worker .*, up \d+ ms/);
    expect((await cli(["health", "--ready"])).stdout).toMatch(/^ready: worker .*, database (pglite|postgres)/);
    expect(Object.keys(JSON.parse((await cli(["health", "--ready", "--json"])).stdout)).sort()).toEqual([
      "database",
      "status",
      "worker_id",
    ]);
  });
});
