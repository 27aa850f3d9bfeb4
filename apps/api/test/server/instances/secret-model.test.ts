// The secret model (docs/security.md "The secret model"): a secret is a property of the value.
// Two attacks a `deploy` token could make on the old model, on a real server:
//  1. process `orders-crm` declares a plain setting TOKEN, whose variable BATON_ORDERS_CRM_TOKEN
//     is the secret CRM_TOKEN of process `orders`;
//  2. process `thief` declares PAYMENT_KEY non-secret to read BATON_GLOBAL_PAYMENT_KEY, which
//     `billing` declares secret.
// The first is refused at registration (two processes' settings never share a variable); the
// second value is `***` in every list, detail, log and error and on the server's stderr,
// whatever process reads it; a global the operator does not share (--share-global) is read by
// no process, with a warning at start. Secrecy is also declared where the value is configured:
// a variable --secret-variables names, or a setting read from a `_FILE`, is `***` everywhere
// though no definition declares it secret. A global shared with a scope (`NAME=ledger-*`) is
// read by the processes the scope reaches only (docs/auth.md "Scopes").
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { client, type SharedDatabase, sharedDatabase, startServer, type TestServer, until } from "@baton/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deploy, start } from "../../support/instances-fixtures.js";

const CRM_TOKEN = "crm-token-of-orders-7f3a9c";
const PAYMENT_KEY = "payment-key-global-51d2e8";
const UNSHARED = "unshared-global-key-0b44";
const DECLARED = "declared-by-operator-9c1d";
const FILED = "filed-by-operator-3e7b";
const LEDGER = "ledger-team-global-6a1f";

let database: SharedDatabase;
let server: TestServer;
let api: ReturnType<typeof client>;

const secretSetting = (name: string) => ({
  type: "object",
  properties: { [name]: { type: "string", secret: true } },
  required: [name],
});
const plainSetting = (name: string) => ({ type: "object", properties: { [name]: { type: "string" } } });
/** Shows the setting in its output and in a log entry, then waits for a worker that fails it quoting the value. */
const leaking = (name: string, setting: string) => ({
  name,
  config_schema: plainSetting(setting),
  tasks: [
    { id: "leak", output: { value: `$: config.${setting} ?? "none"` } },
    {
      id: "wait",
      action: { type: "external", input: { value: `$: config.${setting} ?? "none"` } },
      raises: { rejected: null },
    },
  ],
  output: { value: "$: outputs.leak.value" },
});

beforeAll(async () => {
  database = await sharedDatabase();
  const secretFile = join(mkdtempSync(join(tmpdir(), "secret-model-")), "key");
  writeFileSync(secretFile, `${FILED}\n`);
  server = await startServer({
    database: database.location,
    args: [
      ...["--poll", "50", "--share-global", "PAYMENT_KEY", "--secret-variables", "BATON_OPSEC_*"],
      ...["--share-global", "LEDGER_KEY=ledger-*"],
    ],
    env: {
      BATON_ORDERS_CRM_TOKEN: CRM_TOKEN,
      BATON_GLOBAL_PAYMENT_KEY: PAYMENT_KEY,
      BATON_GLOBAL_UNSHARED_KEY: UNSHARED,
      BATON_OPSEC_TOKEN: DECLARED,
      BATON_FILED_KEY_FILE: secretFile,
      BATON_GLOBAL_LEDGER_KEY: LEDGER,
    },
  });
  api = client(server.url);
  // The owners: each declares its setting secret.
  await deploy(api, { name: "orders", config_schema: secretSetting("CRM_TOKEN"), tasks: [{ id: "a" }] });
  await deploy(api, { name: "billing", config_schema: secretSetting("PAYMENT_KEY"), tasks: [{ id: "a" }] });
  // The attackers: plain settings reading the owners' values.
  await deploy(api, leaking("thief", "PAYMENT_KEY"));
  await deploy(api, leaking("sneak", "UNSHARED_KEY"));
  // Plain settings whose values the operator declared secret.
  await deploy(api, leaking("opsec", "TOKEN"));
  await deploy(api, leaking("filed", "KEY"));
}, 120_000);

afterAll(async () => {
  await server?.stop();
  await database?.dispose();
});

/** Every text a `read` token can see of an instance: list rows, status, detail (resolved), logs, waiting tasks. */
async function everyView(id: string, process: string): Promise<string> {
  const texts = await Promise.all([
    api.get(`/api/instances?process=${process}`),
    api.get(`/api/instances/${id}`),
    api.get(`/api/instances/${id}/detail`),
    api.get(`/api/instances/${id}/detail?resolve=true`),
    api.get(`/api/instances/${id}/logs`),
    api.get("/api/external-tasks"),
  ]);
  for (const res of texts) expect(res.status, res.text).toBe(200);
  return texts.map((res) => res.text).join("\n");
}

/** Claims the instance's waiting task and fails it with an error message quoting `value`. */
async function failQuoting(id: string, value: string) {
  const claim = await until("the task to be claimable", async () => {
    const res = await api.post("/api/external-tasks/claim", { worker_id: "w", limit: 10 });
    return res.body.items.find((item: { instance_id: string }) => item.instance_id === id);
  });
  const res = await api.post("/api/external-tasks/resolve", {
    token: claim.token,
    error: { code: "rejected", message: `upstream refused key ${value}` },
  });
  expect(res.status, res.text).toBe(200);
  await until("the instance to fail", async () =>
    (await api.get(`/api/instances/${id}`)).body.status === "failed" ? true : undefined,
  );
}

describe("a setting whose variable is another process's", () => {
  it("is refused at registration, alone or in a batch, with 400 naming the variable and its owner", async () => {
    const alone = await api.put("/api/definitions", leaking("orders-crm", "TOKEN"));
    expect(alone.status, alone.text).toBe(400);
    expect(alone.body.code).toBe("invalid");
    expect(alone.body.error).toBe(
      'setting "TOKEN" of process "orders-crm" would read BATON_ORDERS_CRM_TOKEN, the variable of setting "CRM_TOKEN" of process "orders"; rename the setting (settings of two processes never share a variable, docs/security.md "The secret model")',
    );
    expect(alone.body.fields).toEqual([{ path: "body.config_schema.properties.TOKEN", message: alone.body.error }]);
    const batch = await api.put("/api/definitions/batch", {
      channel: "prod",
      definitions: [leaking("crm-a", "X_TOKEN"), leaking("crm-a-x", "TOKEN")],
    });
    expect(batch.status, batch.text).toBe(400);
    expect(batch.body.fields[0].path).toBe("body.definitions[1].config_schema.properties.TOKEN");
    expect((await api.get("/api/definitions?name=orders-crm")).body.items).toEqual([]);
    expect((await api.get("/api/definitions?name=crm-a")).body.items, "nothing of the batch is stored").toEqual([]);
  });
});

describe("a secret value read under a plain setting name", () => {
  it.each([
    ["thief", "PAYMENT_KEY", PAYMENT_KEY],
    ["opsec", "TOKEN (named by --secret-variables)", DECLARED],
    ["filed", "KEY (read from BATON_FILED_KEY_FILE)", FILED],
  ])("%s reading %s shows *** in every list, detail, log, error and stderr line", async (process, _setting, secret) => {
    const { id } = await start(api, { process });
    await until("the instance to wait for its worker", async () =>
      (await api.get(`/api/instances/${id}`)).body.task === "wait" ? true : undefined,
    );
    const waiting = await everyView(id, process);
    expect(waiting).toContain("***");
    expect(waiting).not.toContain(secret);
    await failQuoting(id, secret);
    const failed = await everyView(id, process);
    expect((await api.get(`/api/instances/${id}`)).body.error_message).toContain("upstream refused key ***");
    expect(failed).not.toContain(secret);
    expect(server.stderr()).not.toContain(secret);
  });
});

describe("a global shared with a scope", () => {
  it("is read by the processes the scope reaches and by no other", async () => {
    const shown = async (name: string) => {
      await deploy(api, leaking(name, "LEDGER_KEY"));
      const id = (await start(api, { process: name })).id;
      return until(`${name} to pass its leak task`, async () => {
        const detail = await api.get(`/api/instances/${id}/detail`);
        return detail.body.state.outputs?.leak?.value as string | undefined;
      });
    };
    expect(await shown("ledger-eu")).toBe(LEDGER);
    expect(await shown("orders-peek"), "a process outside ledger-* reads the setting unset").toBe("none");
  });
});

describe("a global the operator does not share", () => {
  it("is read by no process: the setting is unset", async () => {
    const { id } = await start(api, { process: "sneak" });
    await until("the instance to wait for its worker", async () =>
      (await api.get(`/api/instances/${id}`)).body.task === "wait" ? true : undefined,
    );
    const detail = await api.get(`/api/instances/${id}/detail`);
    expect(detail.body.state.outputs.leak).toEqual({ value: "none" });
    expect(await everyView(id, "sneak")).not.toContain(UNSHARED);
  });

  it("is named in a start-up warning", async () => {
    // Last: the database outlives this server (PGlite admits one process per data dir).
    await server.stop();
    const restarted = await startServer({
      args: ["--poll", "0"],
      database: server.database,
      env: { BATON_ORDERS_CRM_TOKEN: CRM_TOKEN, BATON_GLOBAL_UNSHARED_KEY: UNSHARED },
    });
    try {
      const lines = restarted.stderr();
      expect(lines).toContain('"msg":"global setting withheld"');
      expect(lines).toContain("share it with --share-global UNSHARED_KEY");
      expect(lines).not.toContain(CRM_TOKEN);
      expect(lines).not.toContain(UNSHARED);
    } finally {
      await restarted.stop();
    }
  });
});
