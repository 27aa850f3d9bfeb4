import { request, startServer, type TestServer, type SharedDatabase, sharedDatabase } from "@baton/testkit";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { bearer, bootstrapToken, jwtFlags, jwtSecretFile, mintJwt } from "../support/auth-fixtures.js";

// Each test spawns the built binary (a PGlite start is 3-15 s on a busy 2-core machine).
vi.setConfig({ testTimeout: 120_000 });

// Every change records who made it: `token:<id>` for an svc_sk_ token, the JWT's sub for a person.

let database: SharedDatabase;
let secretFile: ReturnType<typeof jwtSecretFile>;
let server: TestServer;
let admin: string;
let deployer: { id: string; token: string };
let person: string;
const PERSON = "grace@example.com";

const definition = (name: string, note = "ok") => ({ name, tasks: [{ id: "done", output: { note } }] });
const call = (method: string, path: string, credential: string, body?: unknown) =>
  request(server.url, method, path, body, bearer(credential));

beforeAll(async () => {
  database = await sharedDatabase();
  secretFile = jwtSecretFile();
  admin = await bootstrapToken(database, "actor admin", "admin");
  server = await startServer({
    database: database.location,
    args: ["--auth", "token", "--poll", "0", ...jwtFlags(secretFile.path)],
  });
  const created = await call("POST", "/api/tokens", admin, { label: "ci", perms: ["deploy", "read", "operate"] });
  deployer = { id: created.body.id, token: created.body.token };
  person = await mintJwt({ sub: PERSON, perms: ["deploy", "read", "operate"], expiresIn: 900 });
});

afterAll(async () => {
  await server?.stop();
  await database?.dispose();
  secretFile?.dispose();
});

describe("actor of definitions and channels", () => {
  it("records token:<id> on a definition registered with a token", async () => {
    expect((await call("PUT", "/api/definitions", deployer.token, definition("by-token"))).status).toBe(200);
    const list = await call("GET", "/api/definitions", deployer.token);
    expect(list.body.items.find((d: any) => d.name === "by-token")).toMatchObject({
      version: 1,
      actor: `token:${deployer.id}`,
    });
  });

  it("records the JWT sub on a definition registered by a person", async () => {
    expect((await call("PUT", "/api/definitions", person, definition("by-person"))).status).toBe(200);
    const list = await call("GET", "/api/definitions", person);
    expect(list.body.items.find((d: any) => d.name === "by-person")).toMatchObject({ actor: PERSON });
  });

  it("records who pointed a channel last", async () => {
    expect(
      (await call("PUT", "/api/channels", deployer.token, { name: "by-token", channel: "prod", version: 1 })).status,
    ).toBe(200);
    let entry = (await call("GET", "/api/channels?name=by-token", deployer.token)).body.items.find(
      (c: any) => c.channel === "prod",
    );
    expect(entry).toMatchObject({ version: 1, actor: `token:${deployer.id}` });
    expect((await call("PUT", "/api/channels", person, { name: "by-token", channel: "prod", version: 1 })).status).toBe(
      200,
    );
    entry = (await call("GET", "/api/channels?name=by-token", person)).body.items.find(
      (c: any) => c.channel === "prod",
    );
    expect(entry.actor).toBe(PERSON);
  });

  it("records the actor of a batch deployment on its definitions and channel", async () => {
    const res = await call("PUT", "/api/definitions/batch", person, {
      definitions: [definition("batch-a")],
      channel: "staging",
    });
    expect(res.status, res.text).toBe(200);
    expect(
      (await call("GET", "/api/definitions", person)).body.items.find((d: any) => d.name === "batch-a").actor,
    ).toBe(PERSON);
    expect((await call("GET", "/api/channels?name=batch-a", person)).body.items[0].actor).toBe(PERSON);
  });
});

describe("actor in instance logs", () => {
  it("shows who started, paused, resumed and cancelled", async () => {
    const started = await call("POST", "/api/instances", deployer.token, { process: "by-token" });
    expect(started.status, started.text).toBe(200);
    const id = started.body.id;
    expect((await call("POST", `/api/instances/${id}/pause`, person, {})).status).toBe(200);
    expect((await call("POST", `/api/instances/${id}/resume`, deployer.token, {})).status).toBe(200);
    expect((await call("POST", `/api/instances/${id}/cancel`, person, {})).status).toBe(200);
    const logs = (await call("GET", `/api/instances/${id}/logs?limit=100`, person)).body.items;
    const actorOf = (event: string) => logs.find((l: any) => l.event === event)?.actor;
    expect(actorOf("instance.started")).toBe(`token:${deployer.id}`);
    expect(actorOf("instance.paused")).toBe(PERSON);
    expect(actorOf("instance.resumed")).toBe(`token:${deployer.id}`);
    expect(actorOf("instance.cancelled")).toBe(PERSON);
  });

  it("shows who retried a failed instance", async () => {
    const failing = {
      name: "fails",
      tasks: [{ id: "call", action: { type: "fetch", url: "http://127.0.0.1:9/closed", method: "get" } }],
    };
    expect((await call("PUT", "/api/definitions", deployer.token, failing)).status).toBe(200);
    const id = (await call("POST", "/api/instances", deployer.token, { process: "fails" })).body.id;
    let status = "running";
    for (let round = 0; round < 10 && status !== "failed"; round++) {
      await call("POST", "/api/tick", admin, {});
      status = (await call("GET", `/api/instances/${id}`, person)).body.status;
    }
    expect(status, "a fetch to a closed port fails the instance").toBe("failed");
    const retried = await call("POST", `/api/instances/${id}/retry`, person, {});
    expect(retried.status, retried.text).toBe(200);
    const logs = (await call("GET", `/api/instances/${id}/logs?limit=100`, person)).body.items;
    expect(logs.find((l: any) => l.event === "instance.retried")?.actor).toBe(PERSON);
  });
});
