// Inbound hooks on a real server (docs/events.md "Hooks"): each verifier checked against a
// signature made independently (the `standardwebhooks` package; node:crypto written here for
// GitHub, Stripe), and every refusal — wrong signature, stale timestamp, replayed id, oversized
// body, unknown hook — starting nothing; concurrent retries of one delivery start one instance.
import { createHmac } from "node:crypto";
import { client, type SharedDatabase, sharedDatabase, startServer, type TestServer } from "@baton/testkit";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deploy } from "../../support/instances-fixtures.js";

const build = {
  name: "build",
  input_schema: {
    type: "object",
    properties: { repo: { type: "string" }, sha: { type: "string" } },
    required: ["repo", "sha"],
  },
  tasks: [{ id: "done" }],
  output: "$: input",
};
const order = {
  name: "order",
  tasks: [
    {
      id: "pay",
      action: {
        type: "external",
        result_schema: { type: "object", properties: { amount: { type: "integer" } }, required: ["amount"] },
      },
    },
  ],
  output: { paid: "$: outputs.pay.amount" },
};

const GITHUB_SECRET = "github-shared-secret-0001";
const STRIPE_SECRET = "whsec_stripe-test-secret-0002";
const STD_SECRET = `whsec_${Buffer.alloc(32, 3).toString("base64")}`;

// The parts of the senders' bodies the shapes read, typed: what makes the shapes checkable.
const PUSH = {
  type: "object",
  properties: {
    after: { type: "string" },
    repository: { type: "object", properties: { full_name: { type: "string" } }, required: ["full_name"] },
  },
  required: ["after", "repository"],
};
const PAYMENT = {
  type: "object",
  properties: {
    id: { type: "string" },
    data: {
      type: "object",
      properties: {
        object: {
          type: "object",
          properties: {
            amount: { type: "integer" },
            metadata: { type: "object", properties: { order: { type: "string" } }, required: ["order"] },
          },
          required: ["amount", "metadata"],
        },
      },
      required: ["object"],
    },
  },
  required: ["id", "data"],
};

let db: SharedDatabase;
let server: TestServer;
let api: ReturnType<typeof client>;

beforeAll(async () => {
  db = await sharedDatabase();
  server = await startServer({ database: db.location, args: ["--poll", "0"] });
  api = client(server.url);
  await deploy(api, build);
  await deploy(api, order);
});
afterAll(async () => {
  await server?.stop();
  await db?.dispose();
});

/** POSTs a raw body with headers, as a sender does: no bearer token. */
async function send(name: string, body: string, headers: Record<string, string>) {
  const res = await fetch(`${server.url}/api/hooks/${name}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body,
  });
  const text = await res.text();
  return { status: res.status, text, body: text ? JSON.parse(text) : undefined };
}

async function instancesOf(process: string): Promise<Array<{ id: string; status: string }>> {
  return (await api.get(`/api/instances?process=${process}&limit=100`)).body.items;
}

const github = (body: string, delivery: string, secret = GITHUB_SECRET) => ({
  "x-github-event": "push",
  "x-github-delivery": delivery,
  "x-hub-signature-256": `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`,
});

describe("hooks over HTTP", () => {
  it("describes the process's events in its OpenAPI document, the completed output typed", async () => {
    const doc = await api.get("/api/definitions/build/openapi.json");
    expect(doc.status, doc.text).toBe(200);
    const body = doc.body.webhooks["instance.completed"].post.requestBody.content["application/json"].schema;
    expect(body.properties.data.properties.output.properties).toEqual({
      repo: { type: "string" },
      sha: { type: "string" },
    });
  });

  it("refuses a shape that does not fit the target's input_schema, naming the field", async () => {
    const res = await api.put("/api/hooks/bad", {
      verifier: "github",
      secret: GITHUB_SECRET,
      body_schema: PUSH,
      start: { process: "build", input: { repo: "$: body.repository.full_name" } },
    });
    expect(res.status).toBe(400);
    expect(res.text).toContain("body.start.input");
  });

  it("starts a process from a GitHub push verified by X-Hub-Signature-256, once per delivery", async () => {
    const put = await api.put("/api/hooks/github-push", {
      verifier: "github",
      secret: GITHUB_SECRET,
      body_schema: PUSH,
      start: {
        process: "build",
        input: { repo: "$: body.repository.full_name", sha: "$: body.after" },
        business_key: "$: 'push:' + body.after",
      },
    });
    expect(put.status, put.text).toBe(200);
    expect(put.text).not.toContain(GITHUB_SECRET);
    const body = JSON.stringify({ ref: "refs/heads/main", after: "abc123", repository: { full_name: "acme/app" } });
    const wrong = await send("github-push", body, github(body, "d-0", "not-the-secret-000000"));
    const unknown = await send("no-such-hook", body, github(body, "d-0"));
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(wrong.text, "an unknown hook and a wrong signature are answered alike").toBe(unknown.text);
    expect(await instancesOf("build")).toHaveLength(0);

    const first = await send("github-push", body, github(body, "d-1"));
    expect(first.status, first.text).toBe(200);
    expect(first.body).toMatchObject({ delivery_id: "d-1", duplicate: false, outcome: "started" });
    const again = await send("github-push", body, github(body, "d-1"));
    expect(again.body).toMatchObject({ duplicate: true, instance_id: first.body.instance_id });
    expect(await instancesOf("build")).toHaveLength(1);
    await api.post("/api/tick");
    const detail = await api.get(`/api/instances/${first.body.instance_id}/detail`);
    expect(detail.body.output).toEqual({ repo: "acme/app", sha: "abc123" });
    expect(detail.body.key).toBe("push:abc123");
    const shown = await api.get("/api/hooks/github-push");
    expect(shown.body.last_requests[0]).toMatchObject({ delivery_id: "d-1", outcome: "started" });
    expect(shown.text).not.toContain(GITHUB_SECRET);
  });

  it("checks Standard Webhooks signatures and timestamps, and starts one instance for concurrent retries", async () => {
    const put = await api.put("/api/hooks/std", {
      verifier: "standard_webhooks",
      secret: STD_SECRET,
      body_schema: { type: "object", properties: { repo: { type: "string" } }, required: ["repo"] },
      start: { process: "build", input: { repo: "$: body.repo", sha: "std" } },
    });
    expect(put.status, put.text).toBe(200);
    const before = (await instancesOf("build")).length;
    const wh = new Webhook(STD_SECRET);
    const body = JSON.stringify({ repo: "acme/std" });
    const stale = new Date(Date.now() - 10 * 60_000);
    const staleRes = await send("std", body, {
      "webhook-id": "msg_stale",
      "webhook-timestamp": String(Math.floor(stale.getTime() / 1000)),
      "webhook-signature": wh.sign("msg_stale", stale, body),
    });
    expect(staleRes.status).toBe(401);
    const now = new Date();
    const headers = {
      "webhook-id": "msg_1",
      "webhook-timestamp": String(Math.floor(now.getTime() / 1000)),
      "webhook-signature": wh.sign("msg_1", now, body),
    };
    const tampered = await send("std", JSON.stringify({ repo: "acme/evil" }), headers);
    expect(tampered.status).toBe(401);
    const answers = await Promise.all(Array.from({ length: 5 }, () => send("std", body, headers)));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);
    expect(new Set(answers.map((a) => a.body.instance_id)).size).toBe(1);
    expect(answers.filter((a) => !a.body.duplicate)).toHaveLength(1);
    expect((await instancesOf("build")).length).toBe(before + 1);
  });

  it("signals the waiting payment task of an order from a Stripe event, by business key", async () => {
    await api.put("/api/hooks/stripe", {
      verifier: "stripe",
      secret: STRIPE_SECRET,
      body_schema: PAYMENT,
      signal: {
        process: "order",
        task: "pay",
        business_key: "$: body.data.object.metadata.order",
        result: { amount: "$: body.data.object.amount" },
      },
    });
    const started = await api.post("/api/instances", { process: "order", key: "order-1042" });
    await api.post("/api/tick");
    const body = JSON.stringify({
      id: "evt_1",
      type: "payment_intent.succeeded",
      data: { object: { amount: 12990, metadata: { order: "order-1042" } } },
    });
    const t = Math.floor(Date.now() / 1000);
    const signature = createHmac("sha256", STRIPE_SECRET).update(`${t}.${body}`).digest("hex");
    const res = await send("stripe", body, { "stripe-signature": `t=${t},v1=${signature}` });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ outcome: "signalled", instance_id: started.body.id });
    await api.post("/api/tick");
    const view = await api.get(`/api/instances/${started.body.id}/detail`);
    expect(view.body.status).toBe("completed");
    expect(view.body.output).toEqual({ paid: 12990 });
    const replay = await send("stripe", body, { "stripe-signature": `t=${t},v1=${signature}` });
    expect(replay.body).toMatchObject({ duplicate: true });
  });

  it("refuses an oversized body with 413 and a missing header with 401, starting nothing", async () => {
    await api.put("/api/hooks/shared", {
      verifier: "header",
      secret: "a-shared-value-of-some-length",
      header: "X-Token",
      id_header: "X-Delivery",
      body_schema: { type: "object", properties: { repo: { type: "string" } }, required: ["repo"] },
      start: { process: "build", input: { repo: "$: body.repo", sha: "x" } },
    });
    const before = (await instancesOf("build")).length;
    const big = JSON.stringify({ repo: "x".repeat(1_100_000) });
    const tooBig = await send("shared", big, { "x-token": "a-shared-value-of-some-length", "x-delivery": "1" });
    expect(tooBig.status).toBe(413);
    const missing = await send("shared", JSON.stringify({ repo: "r" }), { "x-delivery": "2" });
    expect(missing.status).toBe(401);
    const ok = await send("shared", JSON.stringify({ repo: "r" }), {
      "x-token": "a-shared-value-of-some-length",
      "x-delivery": "3",
    });
    expect(ok.status, ok.text).toBe(200);
    expect((await instancesOf("build")).length).toBe(before + 1);
    const listed = await api.get("/api/hooks");
    expect(listed.text).not.toContain("a-shared-value-of-some-length");
  });
});
