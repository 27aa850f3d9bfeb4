import { request, startServer, type TestServer, type SharedDatabase, sharedDatabase } from "@baton/testkit";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { bearer, bootstrapToken, jwtFlags, jwtSecretFile, mintJwt } from "../../support/auth-fixtures.js";

// Each test spawns the built binary (a PGlite start is 3-15 s on a busy 2-core machine).
vi.setConfig({ testTimeout: 120_000 });

// Every change records who made it: `token:<id>` for an svc_sk_ token, the JWT's sub for a person.

let database: SharedDatabase;
let secretFile: ReturnType<typeof jwtSecretFile>;
let server: TestServer;
let admin: string;
let deployer: { id: string; token: string };
let person: string;
let reader: string;
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
  reader = (await call("POST", "/api/tokens", admin, { label: "dashboards", perms: ["read"] })).body.token;
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
      actor_label: "ci",
    });
  });

  it("records the JWT sub on a definition registered by a person", async () => {
    expect((await call("PUT", "/api/definitions", person, definition("by-person"))).status).toBe(200);
    const list = await call("GET", "/api/definitions", person);
    expect(list.body.items.find((d: any) => d.name === "by-person")).toMatchObject({
      actor: PERSON,
      actor_label: PERSON,
    });
  });

  it("labels the actor of one stored version, for a reader without admin too", async () => {
    const stored = await call("GET", "/api/definitions/by-token/versions/1", reader);
    expect(stored.status, stored.text).toBe(200);
    expect(stored.body).toMatchObject({ actor: `token:${deployer.id}`, actor_label: "ci" });
    expect(stored.text, "a label never carries the token's secret").not.toContain(deployer.token);
  });

  it("records who pointed a channel last", async () => {
    expect(
      (await call("PUT", "/api/channels", deployer.token, { name: "by-token", channel: "prod", version: 1 })).status,
    ).toBe(200);
    let entry = (await call("GET", "/api/channels?name=by-token", deployer.token)).body.items.find(
      (c: any) => c.channel === "prod",
    );
    expect(entry).toMatchObject({ version: 1, actor: `token:${deployer.id}`, actor_label: "ci" });
    expect((await call("PUT", "/api/channels", person, { name: "by-token", channel: "prod", version: 1 })).status).toBe(
      200,
    );
    entry = (await call("GET", "/api/channels?name=by-token", reader)).body.items.find(
      (c: any) => c.channel === "prod",
    );
    expect(entry).toMatchObject({ actor: PERSON, actor_label: PERSON });
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
    const logs = (await call("GET", `/api/instances/${id}/logs?limit=100`, reader)).body.items;
    const actorOf = (event: string) => {
      const entry = logs.find((l: any) => l.event === event);
      return { actor: entry?.actor, actor_label: entry?.actor_label };
    };
    expect(actorOf("instance.started")).toEqual({ actor: `token:${deployer.id}`, actor_label: "ci" });
    expect(actorOf("instance.paused")).toEqual({ actor: PERSON, actor_label: PERSON });
    expect(actorOf("instance.resumed")).toEqual({ actor: `token:${deployer.id}`, actor_label: "ci" });
    expect(actorOf("instance.cancelled")).toEqual({ actor: PERSON, actor_label: PERSON });
  });

  it("keeps a revoked token's label, and labels several tokens on one page", async () => {
    const temp = await call("POST", "/api/tokens", admin, { label: "one-off script", perms: ["operate"] });
    const id = (await call("POST", "/api/instances", temp.body.token, { process: "by-token" })).body.id;
    expect((await call("POST", `/api/instances/${id}/pause`, deployer.token, {})).status).toBe(200);
    expect((await call("DELETE", `/api/tokens/${temp.body.id}`, admin)).status).toBe(200);
    const logs = (await call("GET", `/api/instances/${id}/logs?limit=100`, reader)).body.items;
    expect(logs.find((l: any) => l.event === "instance.started")).toMatchObject({
      actor: `token:${temp.body.id}`,
      actor_label: "one-off script",
    });
    expect(logs.find((l: any) => l.event === "instance.paused")).toMatchObject({ actor_label: "ci" });
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
    const engineEntries = logs.filter((l: any) => l.actor === null);
    expect(engineEntries.length, "the engine's own entries (the failed fetch) have no actor").toBeGreaterThan(0);
    for (const entry of engineEntries) expect(entry.actor_label, entry.event).toBeNull();
  });
});
