// Text the database cannot hold (docs/limits.md "Text the database cannot hold") — U+0000, and
// lone surrogates, which PostgreSQL's json refuses as escapes — in everything an outside party
// supplies: a worker's error message and error data, a result, a signal's payload, an authored
// raise message. Each is stored (U+FFFD where it must be) and the instance moves on; nothing
// answers 500. Runs on PGlite, and on PostgreSQL when DATABASE_URL is set.
import { client, settled, startServer, type TestServer, until } from "@baton/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deploy, deployAndStart, start } from "../../support/instances-fixtures.js";

let server: TestServer;
let api: ReturnType<typeof client>;

beforeAll(async () => {
  server = await startServer({ args: ["--poll", "50"] });
  api = client(server.url);
  await deploy(api, {
    name: "ask",
    input_schema: { type: "object", properties: { n: { type: "integer" } } },
    tasks: [
      {
        id: "w",
        action: {
          type: "external",
          input: { n: "$: input.n" },
          result_schema: { type: "object", properties: { s: { type: "string" } } },
        },
        raises: { bad: { type: "object", properties: { m: { type: "string" } } } },
        on_error: [{ code: ["bad"], goto: "$caught" }],
      },
      { id: "done", output: { s: "$: outputs.w.s" }, switch: "end" },
      { id: "caught", output: { message: "$: error.message", data: "$: error.data" } },
    ],
  });
}, 120_000);
afterAll(async () => server?.stop());

const HOSTILE = ["nul \u0000 here", "lone \ud800 high", "lone \udfff low", "both \udc00\u0000\ud83d"];
/** The text as a text column holds it: U+0000 and lone surrogates become U+FFFD. */
const stored = (text: string) =>
  text.replace(/\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, "\uFFFD");

/** Starts an instance of "ask" with input n and claims its task. */
async function claimed(n: number): Promise<{ id: string; token: string }> {
  const { id } = await start(api, { process: "ask", input: { n } });
  const token = await until(`the claim of ${id}`, async () => {
    const res = await api.post("/api/external-tasks/claim", { worker_id: "w1", process: "ask", limit: 10 });
    expect(res.status, res.text).toBe(200);
    return res.body.items.find((t: { external_input: { n: number } }) => t.external_input.n === n)?.token as
      | string
      | undefined;
  });
  return { id, token };
}

describe("text the database cannot hold, from outside", () => {
  for (const [i, text] of HOSTILE.entries()) {
    it(`a worker's error message and data ${JSON.stringify(text)} are stored and routed through on_error`, async () => {
      const { id, token } = await claimed(i);
      const res = await api.post("/api/external-tasks/resolve", {
        token,
        error: { code: "bad", message: text, data: { m: text } },
      });
      expect(res.status, res.text).toBe(200);
      const end = await settled(api, id);
      expect(end.status).toBe("completed");
      const detail = (await api.get(`/api/instances/${id}/detail`)).body;
      // In the state (JSON text) it is data, kept exactly (docs/limits.md#poison-instances).
      expect(detail.state.outputs.caught).toEqual({ message: text, data: { m: text } });
      expect((await api.get(`/api/instances/${id}/logs`)).status).toBe(200);
    });

    it(`a result and a signal's payload ${JSON.stringify(text)} are kept as data`, async () => {
      const { id, token } = await claimed(100 + i);
      expect((await api.post("/api/external-tasks/resolve", { token, result: { s: text } })).status).toBe(200);
      expect((await settled(api, id)).status).toBe("completed");
      const other = await start(api, { process: "ask", input: { n: 200 + i } });
      // Signalled once parked: a signal buffered while the arming advance is in flight takes
      // another path (docs/engine.md "External tasks and delay"), which is not what this test is about.
      await until(`instance ${other.id} to park`, async () => {
        const waiting = await api.get(`/api/external-tasks?instance_id=${other.id}`);
        return waiting.body.items.length > 0 ? true : undefined;
      });
      const signal = await api.post("/api/external-tasks/signal", {
        instance_id: other.id,
        task: "w",
        result: { s: text },
      });
      expect(signal.status, signal.text).toBe(200);
      expect((await settled(api, other.id)).status).toBe("completed");
      expect((await api.get(`/api/instances/${other.id}/detail`)).status).toBe(200);
    });
  }

  // A NUL in a definition is refused at registration (400); lone surrogates are accepted.
  it("an authored raise message with them ends the instance raised, not retrying a failing write", async () => {
    const id = await deployAndStart(api, {
      name: "shout",
      tasks: [{ id: "stop", switch: [{ raise: { code: "bad", message: HOSTILE.slice(1, 3).join(" | ") } }] }],
    });
    const end = await settled(api, id);
    expect(end.status).toBe("raised");
    expect(end.error_message).toContain(stored(HOSTILE[1]));
  });
});
