// biome-ignore-all lint/suspicious/noTemplateCurlyInString: "${ }" is the definition language's interpolation
import { client, json, startServer, startUpstream, type TestServer, type Upstream } from "@baton/testkit";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";

// POST /instances/{id}/upgrade follows the compat rules of docs/compat.md: it refuses where a
// read of the new version would break on the stored state (the error root), and moves the
// instance where the stored state reads fine (nullable reads, filled defaults, stored nulls);
// the moved instance then runs to completion under the new version.
vi.setConfig({ testTimeout: 120_000 });

let server: TestServer;
let up: Upstream;
let api: ReturnType<typeof client>;

const park = (id: string, extra: Record<string, unknown> = {}) => ({ id, action: { type: "external" }, ...extra });

beforeAll(async () => {
  up = await startUpstream((req, res) => json(res, req.path === "/fail" ? 500 : 200, { path: req.path }));
  server = await startServer({ args: ["--poll", "0"] });
  api = client(server.url);
});

afterAll(async () => {
  await server?.stop();
  await up?.close();
});

async function register(...defs: unknown[]): Promise<number[]> {
  const versions: number[] = [];
  for (const def of defs) {
    const res = await api.put("/api/definitions", def);
    expect(res.status, res.text).toBe(200);
    versions.push(res.body.version);
  }
  return versions;
}

/** Starts an instance and ticks until it parks on `task`. */
async function startOn(process: string, version: number, task: string, input: unknown = {}): Promise<string> {
  const res = await api.post("/api/instances", { process, version, input });
  expect(res.status, res.text).toBe(200);
  const id = res.body.id as string;
  const parked = async () => (await api.get(`/api/instances/${id}/detail`)).body;
  for (let i = 0; i < 10 && (await parked()).phase !== "external"; i++) await api.post("/api/tick", {});
  expect(await parked()).toMatchObject({ task, phase: "external" });
  return id;
}

/** Signals the parked task and ticks until the instance settles. */
async function finish(id: string, task: string): Promise<Record<string, any>> {
  const sent = await api.post("/api/external-tasks/signal", { instance_id: id, task, result: {} });
  expect(sent.status, sent.text).toBe(200);
  let view = (await api.get(`/api/instances/${id}`)).body;
  for (let i = 0; i < 10 && !["completed", "failed", "raised"].includes(view.status); i++) {
    await api.post("/api/tick", {});
    view = (await api.get(`/api/instances/${id}`)).body;
  }
  return view;
}

const upgrade = (id: string, from_version: number, to_version: number) =>
  api.post(`/api/instances/${id}/upgrade`, { from_version, to_version });

describe("upgrade and the error root", () => {
  const charge = (extra: Record<string, unknown> = {}) => ({
    id: "charge",
    action: { type: "fetch", url: `${up.url}/ok` },
    ...extra,
  });
  const report = () => ({
    id: "report",
    action: { type: "fetch", url: `${up.url}/report`, body: { text: "code ${outputs.notify.code}" } },
  });

  it("refuses an instance that reached the task normally where the new version enters it only through on_error and reads error", async () => {
    const [v1, v2] = await register(
      { name: "err-root", tasks: [charge(), park("notify"), { id: "report", output: { ok: true } }] },
      {
        name: "err-root",
        tasks: [
          charge({ switch: "end", on_error: [{ goto: "$notify" }] }),
          park("notify", { output: { code: "$: error.code" } }),
          report(),
        ],
      },
    );
    const id = await startOn("err-root", v1, "notify");
    const res = await upgrade(id, v1, v2);
    expect(res.status, res.text).toBe(409);
    expect(res.body.error).toContain('task "notify"');
    expect(res.body.error).toContain("error");
    expect((await api.get(`/api/instances/${id}`)).body.version, "nothing moved").toBe(v1);
  });

  it("moves it when every read of error tolerates null, and it completes under the new version", async () => {
    const [v1, v2] = await register(
      { name: "err-safe", tasks: [charge(), park("notify"), { id: "report", output: { ok: true } }] },
      {
        name: "err-safe",
        tasks: [
          charge({ switch: "end", on_error: [{ goto: "$notify" }] }),
          park("notify", { output: { code: "$: error.code ?? 'none'" } }),
          report(),
        ],
      },
    );
    const id = await startOn("err-safe", v1, "notify");
    const res = await upgrade(id, v1, v2);
    expect(res.status, res.text).toBe(200);
    expect((await finish(id, "notify")).status).toBe("completed");
    const sent = up.requests.find((r) => r.path === "/report" && r.headers["x-baton-instance-id"] === id);
    expect(JSON.parse(String(sent?.body))).toEqual({ text: "code none" });
  });
});

describe("upgrade judges the stored input by what it can hold", () => {
  const readsInput = (name: string, properties: Record<string, unknown>, required: string[], read: unknown) => ({
    name,
    input_schema: { type: "object", properties, required },
    tasks: [park("wait"), { id: "done", output: read }],
    output: "$: outputs.done",
  });

  it("moves an instance when the new version requires a property whose type admits null", async () => {
    const [v1, v2] = await register(
      readsInput("nullable", { id: { type: "string" } }, ["id"], { id: "$: input.id" }),
      readsInput("nullable", { id: { type: "string" }, note: { type: ["string", "null"] } }, ["id", "note"], {
        note: "$: input.note",
      }),
    );
    const id = await startOn("nullable", v1, "wait", { id: "a" });
    expect((await upgrade(id, v1, v2)).status).toBe(200);
    const done = await finish(id, "wait");
    expect(done).toMatchObject({ status: "completed", version: v2 });
    expect((await api.get(`/api/instances/${id}/detail`)).body.output).toEqual({ note: null });
  });

  it("moves an instance when a property becomes required that the old default filled, refuses it without the default", async () => {
    const [v1, v2, bare, v4] = await register(
      readsInput("defaults", { region: { type: "string", default: "eu" } }, [], { region: "$: input.region" }),
      readsInput("defaults", { region: { type: "string" } }, ["region"], { region: "$: input.region" }),
      readsInput("defaults", { region: { type: "string" } }, [], { region: "$: input.region" }),
      readsInput("defaults", { region: { type: "string" } }, ["region"], { upper: "${input.region}!" }),
    );
    const id = await startOn("defaults", v1, "wait");
    expect((await upgrade(id, v1, v2)).status).toBe(200);
    expect(await finish(id, "wait")).toMatchObject({ status: "completed", version: v2 });
    expect((await api.get(`/api/instances/${id}/detail`)).body.output).toEqual({ region: "eu" });

    const without = await startOn("defaults", bare, "wait");
    const refused = await upgrade(without, bare, v4);
    expect(refused.status, refused.text).toBe(409);
    expect(refused.body.error).toContain("input_schema /properties/region");
  });

  it("moves an instance whose stored null the new version reads as nullable, refuses one that reads it as never null", async () => {
    const [v1, v2, v3] = await register(
      readsInput("stored-null", { x: { type: ["string", "null"], default: null } }, [], { x: "$: input.x" }),
      readsInput("stored-null", { x: { type: "string" } }, [], { x: "$: input.x" }),
      readsInput("stored-null", { x: { type: "string", default: "a" } }, [], { x: "${input.x}" }),
    );
    const id = await startOn("stored-null", v1, "wait");
    expect((await upgrade(id, v1, v2)).status).toBe(200);
    expect(await finish(id, "wait")).toMatchObject({ status: "completed", version: v2 });
    expect((await api.get(`/api/instances/${id}/detail`)).body.output).toEqual({ x: null });

    const other = await startOn("stored-null", v1, "wait");
    expect((await upgrade(other, v1, v3)).status).toBe(409);
  });
});

describe("POST /definitions/compat with ignore", () => {
  it("reports the excused member's issues with gating false, agreeing with passes", async () => {
    const base = {
      name: "excused",
      tasks: [{ id: "say", output: { text: "hi" } }],
      output: { text: "$: outputs.say.text" },
    };
    const [v1, v2] = await register(base, { ...base, output: { done: true } });
    const body = { from: { versions: { excused: v1 } }, to: { versions: { excused: v2 } } };
    const strict = await api.post("/api/definitions/compat", body);
    expect(strict.body).toMatchObject({ compatible: false, passes: false });
    expect(strict.body.processes[0].issues.some((i: any) => i.member === "contract" && i.gating)).toBe(true);
    const excused = await api.post("/api/definitions/compat", { ...body, ignore: ["contract"] });
    expect(excused.body).toMatchObject({ compatible: false, passes: true });
    expect(excused.body.processes[0].contract.compatible, "still reports what was found").toBe(false);
    const contract = excused.body.processes[0].issues.filter((i: any) => i.member === "contract");
    expect(contract.length).toBeGreaterThan(0);
    for (const issue of contract) expect(issue.gating).toBe(false);
  });
});
