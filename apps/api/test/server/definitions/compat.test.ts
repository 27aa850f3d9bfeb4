import { client, startServer, type TestServer } from "@baton/testkit";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { deploy } from "../../support/instances-fixtures.js";

vi.setConfig({ testTimeout: 120_000 });

let server: TestServer;
let api: ReturnType<typeof client>;

const URL = "https://pay.example.com";
const resultOf = (required: string[]) => ({
  type: "object",
  properties: { id: { type: "string" }, amount: { type: "number" } },
  required,
});
/** v1: charge stores {id}; ship sends it. */
const orderV1 = {
  name: "order",
  input_schema: { type: "object", properties: { order_id: { type: "string" } }, required: ["order_id"] },
  tasks: [
    { id: "charge", action: { type: "fetch", url: `${URL}/charge`, result_schema: resultOf(["id"]) } },
    { id: "ship", action: { type: "external", input: { charge: "$: outputs.charge.id" } } },
  ],
  output: { charge: "$: outputs.charge.id" },
};
/** v2: charge also needs amount, ship reads it: instances on ship cannot move. */
const orderV2 = {
  ...orderV1,
  tasks: [
    { id: "charge", action: { type: "fetch", url: `${URL}/charge`, result_schema: resultOf(["id", "amount"]) } },
    {
      id: "ship",
      action: { type: "external", input: { charge: "$: outputs.charge.id", amount: "$: outputs.charge.amount" } },
    },
  ],
};
/** v3: only the contract breaks: the output no longer carries `charge`. */
const orderV3 = { ...orderV1, output: { done: true } };
/** Unsaved: a new required input field breaks the contract (and stored inputs lack it too). */
const withRegion = {
  ...orderV1,
  input_schema: {
    type: "object",
    properties: { order_id: { type: "string" }, region: { type: "string" } },
    required: ["order_id", "region"],
  },
};
const note = { name: "note", tasks: [{ id: "say", output: { text: "hi" } }] };

beforeAll(async () => {
  server = await startServer({ args: ["--poll", "0"] });
  api = client(server.url);
  for (const def of [orderV1, orderV2, orderV3, note]) await deploy(api, def);
  for (const [name, channel, version] of [
    ["order", "production", 1],
    ["note", "production", 1],
    ["order", "staging", 2],
    ["order", "contract", 3],
  ] as const) {
    const res = await api.put("/api/channels", { name, channel, version });
    expect(res.status, res.text).toBe(200);
  }
});

afterAll(async () => {
  await server?.stop();
});

const compat = (body: unknown) => api.post("/api/definitions/compat", body);

describe("POST /definitions/compat", () => {
  it("compares two channels process by process, reporting processes on one side only", async () => {
    const res = await compat({ from: { channel: "production" }, to: { channel: "staging" } });
    expect(res.status, res.text).toBe(200);
    expect(res.body.compatible).toBe(false);
    expect(res.body.passes).toBe(false);
    const [note_, order] = res.body.processes;
    expect(note_).toMatchObject({
      name: "note",
      status: "only_in_from",
      from: 1,
      to: null,
      upgrade: { compatible: true },
      contract: { compatible: true },
    });
    expect(order).toMatchObject({
      name: "order",
      status: "compared",
      from: 1,
      to: 2,
      upgrade: { compatible: false },
      contract: { compatible: true },
    });
    expect(order.changed).toEqual([
      { address: "tasks.charge", task: "charge" },
      { address: "tasks.ship", task: "ship" },
    ]);
    expect(order.issues).toContainEqual(
      expect.objectContaining({
        member: "upgrade",
        address: "tasks.charge.output",
        path: "/properties/amount",
        gating: true,
      }),
    );
  });

  it("restricts to one process with `process`", async () => {
    const res = await compat({ from: { channel: "production" }, to: { channel: "staging" }, process: "order" });
    expect(res.status, res.text).toBe(200);
    expect(res.body.processes.map((p: any) => p.name)).toEqual(["order"]);
  });

  it("names versions by number or by channel", async () => {
    const res = await compat({ from: { versions: { order: "production" } }, to: { versions: { order: 1 } } });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ compatible: true, passes: true });
    expect(res.body.processes).toEqual([
      {
        name: "order",
        status: "compared",
        from: 1,
        to: 1,
        upgrade: { compatible: true },
        contract: { compatible: true },
        changed: [],
        issues: [],
      },
    ]);
  });

  it("compares unsaved definitions, which report version null", async () => {
    const res = await compat({ from: { versions: { order: 1 } }, to: { definitions: [withRegion] } });
    expect(res.status, res.text).toBe(200);
    const [order] = res.body.processes;
    expect(order).toMatchObject({ from: 1, to: null, contract: { compatible: false } });
    expect(order.issues).toContainEqual(
      expect.objectContaining({
        member: "contract",
        address: "input_schema",
        path: "/properties/region",
        gating: true,
      }),
    );
  });

  it("excuses the contract member from passes with ignore, never the upgrade member", async () => {
    const contractOnly = { from: { channel: "production" }, to: { channel: "contract" }, process: "order" };
    const strict = await compat(contractOnly);
    expect(strict.body).toMatchObject({ compatible: false, passes: false });
    expect(strict.body.processes[0]).toMatchObject({ upgrade: { compatible: true }, contract: { compatible: false } });
    expect(strict.body.processes[0].issues).toContainEqual(
      expect.objectContaining({ member: "contract", address: "output", path: "/properties/charge" }),
    );
    const excused = await compat({ ...contractOnly, ignore: ["contract"] });
    expect(excused.status, excused.text).toBe(200);
    expect(excused.body.compatible, "compatible still tells the truth").toBe(false);
    expect(excused.body.passes).toBe(true);
    const upgradeBroken = await compat({
      from: { channel: "production" },
      to: { channel: "staging" },
      process: "order",
      ignore: ["contract"],
    });
    expect(upgradeBroken.body.passes).toBe(false);
  });

  it("answers 404 for an unknown channel, process, version or channel of a process", async () => {
    const cases = [
      { from: { channel: "nowhere" }, to: { channel: "staging" } },
      { from: { versions: { ghost: 1 } }, to: { channel: "staging" } },
      { from: { versions: { order: 9 } }, to: { channel: "staging" } },
      { from: { versions: { order: "nowhere" } }, to: { channel: "staging" } },
      { from: { channel: "production" }, to: { channel: "staging" }, process: "ghost" },
    ];
    for (const body of cases) {
      const res = await compat(body);
      expect(res.status, JSON.stringify(body)).toBe(404);
      expect(res.body.code).toBe("not_found");
    }
    expect((await compat(cases[2])).body.error).toContain("no version 9");
  });

  it("answers 400 with fields for an invalid unsaved definition, and for a malformed selector", async () => {
    const res = await compat({
      from: { channel: "production" },
      to: { definitions: [{ name: "order", tasks: [{ id: "a", action: { type: "fetch" } }] }] },
    });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("invalid");
    expect(res.body.fields[0].path).toMatch(/^body\.to\.definitions\[0\]/);
    expect(
      (await compat({ from: { channel: "production", versions: { order: 1 } }, to: { channel: "staging" } })).status,
      "exactly one selector",
    ).toBe(400);
    expect(
      (await compat({ from: { channel: "production" }, to: { channel: "staging" }, ignore: ["upgrade"] })).status,
    ).toBe(400);
  });
});
