// The timeline's fetch attempts: each fetch attempt's log entry — task.completed or task.failed — carries
// the host it called and the call's latency (docs/engine.md "Log events", docs/api.md
// "Timeline"), and never the URL's path, query or credentials, which may carry secrets.
import { stringifyJson } from "@baton/expr";
import { json, startUpstream, type Upstream } from "@baton/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, openHarness } from "../support/engine-harness.js";

let h: Harness;
let up: Upstream;
let host: string;

beforeAll(async () => {
  h = await openHarness();
  up = await startUpstream();
  host = new URL(up.url).host;
});
afterAll(async () => {
  await up?.close();
  await h?.close();
});

const secretUrl = () => `${up.url.replace("http://", "http://agent:pa55word@")}/orders/4711?token=s3cret-value`;

async function fetchEntries(id: string) {
  const logs = await h.logs(id);
  // Neither the query string nor the credentials of the URL are written, in any entry (message or data).
  for (const entry of logs) expect(stringifyJson(entry)).not.toMatch(/s3cret|pa55word|agent/);
  return logs.filter((l) => l.event === "task.completed" || l.event === "task.failed");
}

describe("fetch attempts in the log", () => {
  it("gives each attempt its host and latency: failed attempts, their retry, and the completed one", async () => {
    let calls = 0;
    up.handle(async (_req, res) => {
      calls++;
      // Every answer comes at least 150 ms after the request: each latency is at least that.
      await new Promise((r) => setTimeout(r, 150));
      if (calls <= 2) json(res, 503, { busy: true });
      else json(res, 200, { ok: true });
    });
    const id = await h.deployAndStart({
      name: "attempts",
      tasks: [
        {
          id: "call",
          action: { type: "fetch", url: secretUrl() },
          on_error: [{ code: "http.503", retry: { retries: 3, delay: "1ms" } }],
        },
      ],
    });
    const done = await h.runToEnd(id, 10, 50);
    expect(done.status).toBe("completed");
    const entries = await fetchEntries(id);
    expect(
      entries.map((e) => [e.event, (e.data as { code?: string }).code ?? (e.data as { status: number }).status]),
    ).toEqual([
      ["task.failed", "http.503"],
      ["task.failed", "http.503"],
      ["task.completed", 200],
    ]);
    for (const entry of entries) {
      const data = entry.data as { host: string; latency_ms: number };
      expect(data.host).toBe(host);
      expect(Number.isInteger(data.latency_ms)).toBe(true);
      expect(data.latency_ms).toBeGreaterThanOrEqual(150);
    }
  });

  it("gives a timed-out attempt its host and latency, and a refused target its host only", async () => {
    up.handle(() => {
      /* never answers */
    });
    const slow = await h.deployAndStart({
      name: "attempt_timeout",
      tasks: [{ id: "call", action: { type: "fetch", url: secretUrl(), timeout: { for: "200ms" } } }],
    });
    await h.tick();
    const [timedOut] = await fetchEntries(slow);
    expect(timedOut!.data).toMatchObject({ code: "http.timeout", host });
    expect((timedOut!.data as { latency_ms: number }).latency_ms).toBeGreaterThanOrEqual(200);

    const denying = h.newEngine("deny-worker", { fetchDenyHosts: ["127.0.0.1"] });
    const denied = await h.deployAndStart({
      name: "attempt_denied",
      tasks: [{ id: "call", action: { type: "fetch", url: secretUrl() } }],
    });
    await denying.tick();
    const [refused] = await fetchEntries(denied);
    // The request never left: there is no latency to report.
    expect(refused!.data).toEqual({ code: "pre.error", host });
  });

  it("keeps the host and latency on the failure of an output evaluated after the call", async () => {
    up.handle((_req, res) => json(res, 200, { n: 0 }));
    const id = await h.deployAndStart({
      name: "attempt_output",
      tasks: [
        {
          id: "call",
          action: {
            type: "fetch",
            url: secretUrl(),
            result_schema: { type: "object", properties: { n: { type: "integer" } }, required: ["n"] },
          },
          output: "$: 1 / self.result.n",
        },
      ],
    });
    await h.tick();
    const [failed] = await fetchEntries(id);
    expect(failed!.data).toMatchObject({ code: "engine.expression", host });
    expect(Number.isInteger((failed!.data as { latency_ms: number }).latency_ms)).toBe(true);
  });
});
