import { client, json, startServer, startUpstream, type TestServer, type Upstream } from "@baton/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// docs/language.md#secrets: config values marked `secret: true` are redacted ("***") in logs and API views.
// The real server reads the secret from its environment; the upstream sees the real value.

const SECRET = "s3cr3t-value";
// Characters that every encoding changes: a query string, JSON and Basic credentials each carry another spelling.
const ENCODED_SECRET = 'p@ss w0rd/&=é+"quoted"';
// Interpolated into a URL's credentials as is, so without characters a URL would split on.
const BASIC_SECRET = "basic-auth-password-42";

let server: TestServer;
let up: Upstream;
let api: ReturnType<typeof client>;

const padding = "x".repeat(200);
// biome-ignore lint/suspicious/noTemplateCurlyInString: a Baton template, interpolated by the engine
const KEY = "${ config.api_key }";

beforeAll(async () => {
  up = await startUpstream((req, res) => {
    if (req.path.startsWith("/echo-url"))
      return json(res, 400, { error: `bad request to ${req.path}`, authorization: req.headers.authorization ?? null });
    if (req.path.startsWith("/fail"))
      return json(res, 500, { error: `rejected key ${String(req.headers["x-api-key"])}` });
    json(res, 200, { seen: String(req.headers["x-api-key"]), path: req.path, body: req.body, padding });
  });
  // A small object threshold so the echoed result is externalized and GET /objects is exercised.
  server = await startServer({
    args: ["--poll", "0", "--object-threshold", "64", "--log-level", "debug"],
    env: {
      BATON_VAULT_API_KEY: SECRET,
      BATON_VAULT_FAIL_API_KEY: SECRET,
      BATON_VAULT_PARENT_API_KEY: SECRET,
      BATON_VAULT_KID_API_KEY: SECRET,
      BATON_VAULT_QUERY_API_KEY: ENCODED_SECRET,
      BATON_VAULT_BASIC_API_KEY: BASIC_SECRET,
    },
  });
  api = client(server.url);
  const config_schema = {
    type: "object",
    properties: { api_key: { type: "string", secret: true } },
    required: ["api_key"],
  };
  const echo = {
    id: "echo",
    action: {
      type: "fetch",
      method: "post",
      url: `${up.url}/echo/${KEY}`,
      headers: { "X-Api-Key": KEY },
      body: { key: "$: config.api_key" },
      result_schema: {
        type: "object",
        properties: {
          seen: { type: "string" },
          path: { type: "string" },
          body: { type: "string" },
          padding: { type: "string" },
        },
      },
    },
    output: { seen: "$: self.result.seen", echoed: "$: self.result" },
  };
  for (const def of [
    {
      name: "vault",
      config_schema,
      tasks: [
        echo,
        {
          id: "again",
          action: { type: "fetch", method: "post", url: `${up.url}/again`, body: { seen: "$: outputs.echo.seen" } },
        },
      ],
      output: { key_was: "$: outputs.echo.seen", sentence: `the key is ${KEY}` },
    },
    {
      name: "vault_fail",
      config_schema,
      tasks: [
        echo,
        {
          id: "fail",
          action: { type: "fetch", method: "get", url: `${up.url}/fail?k=${KEY}`, headers: { "X-Api-Key": KEY } },
        },
      ],
    },
    // The secret in a query string the upstream echoes back (URL-encoded), and as the password of
    // the URL's credentials, which go out as `Authorization: Basic base64(user:secret)`.
    {
      name: "vault_query",
      config_schema,
      tasks: [
        {
          id: "call",
          action: {
            type: "fetch",
            method: "get",
            url: `${up.url}/echo-url`,
            query: { token: "$: config.api_key", again: KEY },
          },
        },
      ],
    },
    {
      name: "vault_basic",
      config_schema,
      tasks: [
        {
          id: "call",
          action: {
            type: "fetch",
            method: "get",
            url: `${up.url.replace("http://", `http://svc:${KEY}@`)}/echo-url`,
          },
        },
      ],
    },
    // A parent handing its secret to a child whose process declares none, and a child with a
    // secret of its own handing it back to a parent that declares none.
    {
      name: "plain_kid",
      input_schema: { type: "object", properties: { key: { type: "string" } }, required: ["key"] },
      tasks: [{ id: "keep", output: { got: "$: input.key" } }],
      output: { got: "$: outputs.keep.got" },
    },
    {
      name: "vault_parent",
      config_schema,
      tasks: [{ id: "kid", action: { type: "child", name: "plain_kid", input: { key: "$: config.api_key" } } }],
    },
    {
      name: "vault_kid",
      config_schema,
      tasks: [{ id: "keep", output: { got: "$: config.api_key" } }],
      output: { got: "$: outputs.keep.got" },
    },
    {
      name: "plain_parent",
      tasks: [{ id: "kid", action: { type: "child", name: "vault_kid" } }],
      output: { whole: "$: outputs.kid" },
    },
  ]) {
    const res = await api.put("/api/definitions", def);
    expect(res.status, res.text).toBe(200);
  }
});
afterAll(async () => {
  await server?.stop();
  await up?.close();
});

async function runToEnd(process: string): Promise<string> {
  const res = await api.post("/api/instances", { process });
  expect(res.status, res.text).toBe(200);
  const id = res.body.id as string;
  for (let i = 0; i < 20; i++) {
    const view = await api.get(`/api/instances/${id}`);
    if (view.body.status !== "running") return id;
    await api.post("/api/tick", {});
  }
  throw new Error(`instance ${id} did not settle`);
}

async function everythingShownAbout(id: string): Promise<Record<string, string>> {
  const shown: Record<string, string> = {};
  shown.status = (await api.get(`/api/instances/${id}`)).text;
  shown.detail = (await api.get(`/api/instances/${id}/detail`)).text;
  shown.resolved = (await api.get(`/api/instances/${id}/detail?resolve=true`)).text;
  shown.list = (await api.get("/api/instances?limit=100")).text;
  shown.logs = (await api.get(`/api/instances/${id}/logs?limit=100&level=debug`)).text;
  const detail = JSON.parse(shown.detail) as { objects: Array<{ ref: string }> };
  for (const [i, object] of detail.objects.entries())
    shown[`object ${i}`] = (await api.get(`/api/objects/${object.ref}`)).text;
  return shown;
}

describe("secret config values", () => {
  it("sends the real value upstream but shows *** in every view, log and object of a completed instance", async () => {
    const before = up.requests.length;
    const id = await runToEnd("vault");
    const sent = up.requests.slice(before);
    expect(sent).toHaveLength(2);
    expect(sent[0].headers["x-api-key"], "the upstream gets the real secret").toBe(SECRET);
    expect(sent[0].path).toBe(`/echo/${SECRET}`);
    expect(JSON.parse(sent[0].body)).toEqual({ key: SECRET });
    expect(JSON.parse(sent[1].body), "the stored state keeps the real value for later tasks").toEqual({ seen: SECRET });

    const status = (await api.get(`/api/instances/${id}`)).body;
    expect(status.status).toBe("completed");
    expect(status.output).toEqual({ key_was: "***", sentence: "the key is ***" });
    const resolved = (await api.get(`/api/instances/${id}/detail?resolve=true`)).body;
    expect(resolved.state.outputs.echo.seen).toBe("***");
    expect(resolved.state.outputs.echo.echoed.path).toBe("/echo/***");

    const shown = await everythingShownAbout(id);
    expect(Object.keys(shown), "the echoed result is big enough to be an object").toContain("object 0");
    for (const [where, text] of Object.entries(shown)) {
      expect(text, `${where} must not carry the secret`).not.toContain(SECRET);
    }
    expect(shown.resolved).toContain("***");
    expect(shown.list).toContain("***");
  });

  it("redacts an http error body quoting the secret in error_message, logs and views; stderr never carries it", async () => {
    const id = await runToEnd("vault_fail");
    const status = (await api.get(`/api/instances/${id}`)).body;
    expect(status.status).toBe("failed");
    expect(status.error_code).toBe("http.500");
    expect(status.error_message, "the body quoted by http.500 is redacted").toContain("rejected key ***");
    expect(up.requests.at(-1)?.path, "the upstream gets the real secret in the query").toBe(`/fail?k=${SECRET}`);

    const shown = await everythingShownAbout(id);
    for (const [where, text] of Object.entries(shown)) {
      expect(text, `${where} must not carry the secret`).not.toContain(SECRET);
    }
    const logs = JSON.parse(shown.logs) as { items: Array<{ event: string; message: string; data?: unknown }> };
    expect(
      logs.items.some((l) => l.message.includes("***") || JSON.stringify(l.data ?? null).includes("***")),
      "the failure is logged, redacted",
    ).toBe(true);
    expect(server.stderr(), "the server's own log lines").not.toContain(SECRET);
  });

  it("redacts a secret passed between parent and child in both instances' views, whichever process declares it", async () => {
    for (const parentProcess of ["vault_parent", "plain_parent"]) {
      const id = await runToEnd(parentProcess);
      expect((await api.get(`/api/instances/${id}`)).body.status, parentProcess).toBe("completed");
      const detail = (await api.get(`/api/instances/${id}/detail`)).body;
      const childId = detail.state._children.kid as string;
      const views = {
        parent: await everythingShownAbout(id),
        child: await everythingShownAbout(childId),
        list: (await api.get("/api/instances?children=true&limit=100")).text,
      };
      for (const [where, shown] of Object.entries(views)) {
        expect(JSON.stringify(shown), `${parentProcess}: the secret must not show in the ${where} views`).not.toContain(
          SECRET,
        );
      }
      expect(JSON.stringify(views.child), `${parentProcess}: the child's views show the redaction mark`).toContain(
        "***",
      );
    }
  });
});

describe("encoded forms of a secret", () => {
  /** Every spelling of `secret` this test expects to be gone: raw, URL-encoded, JSON-escaped, base64 (whole and aligned cores). */
  const spellings = (secret: string) => {
    const bytes = Buffer.from(`svc:${secret}`);
    const cores = [0, 1, 2].map((skip) => {
      const from = 4 + skip;
      const whole = bytes.subarray(from, from + Math.floor((bytes.length - from) / 3) * 3);
      return whole.toString("base64");
    });
    return [
      secret,
      encodeURIComponent(secret),
      new URLSearchParams({ v: secret }).toString().slice(2),
      JSON.stringify(secret).slice(1, -1),
      Buffer.from(`svc:${secret}`).toString("base64"),
      ...cores.filter((core) => bytes.toString("base64").includes(core)),
    ];
  };

  it("redacts a secret the upstream echoes URL-encoded from the query, in error_message, logs and views", async () => {
    const id = await runToEnd("vault_query");
    const sent = up.requests.at(-1)!;
    expect(new URL(sent.path, "http://x").searchParams.get("token"), "the upstream gets the real value").toBe(
      ENCODED_SECRET,
    );
    const status = (await api.get(`/api/instances/${id}`)).body;
    expect(status.error_code).toBe("http.400");
    expect(status.error_message).toContain("bad request to /echo-url?again=***&token=***");
    const shown = await everythingShownAbout(id);
    for (const [where, text] of Object.entries(shown))
      for (const spelling of spellings(ENCODED_SECRET)) expect(text, `${where}: ${spelling}`).not.toContain(spelling);
    expect(server.stderr()).not.toContain(encodeURIComponent(ENCODED_SECRET));
  });

  it("redacts Basic credentials built from the secret when the upstream echoes them", async () => {
    const id = await runToEnd("vault_basic");
    const sent = up.requests.at(-1)!;
    expect(sent.headers.authorization).toBe(`Basic ${Buffer.from(`svc:${BASIC_SECRET}`).toString("base64")}`);
    const status = (await api.get(`/api/instances/${id}`)).body;
    expect(status.error_code).toBe("http.400");
    expect(status.error_message).toContain('"authorization":"Basic ');
    expect(status.error_message).toContain("***");
    const shown = await everythingShownAbout(id);
    for (const [where, text] of Object.entries(shown))
      for (const spelling of spellings(BASIC_SECRET)) expect(text, `${where}: ${spelling}`).not.toContain(spelling);
  });
});
