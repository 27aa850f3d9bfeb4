// biome-ignore-all lint/suspicious/noTemplateCurlyInString: "${ }" is the definition language's interpolation
// Checking a definition runs on a checker thread (docs/limits.md#the-checker-thread),
// so a check of the largest definitions allowed does not stall the event loop: /healthz and
// other requests answer while it runs. The server has one checker thread per lane and no queue, so a
// second check of the same lane while one runs is refused with 503 — which is also how this test knows, without
// timing anything, that the big check is running on its thread at that moment.
import { client, startServer, type TestServer } from "@baton/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

let server: TestServer;
let api: ReturnType<typeof client>;

beforeAll(async () => {
  server = await startServer({ args: ["--poll", "0", "--limit-checker-threads", "1", "--limit-checker-queue", "0"] });
  api = client(server.url);
}, 120_000);

afterAll(async () => {
  await server?.stop();
});

/** n chained fetch tasks, each reading the previous output: work for every checker analysis. */
function chain(name: string, n: number) {
  return {
    name,
    tasks: Array.from({ length: n }, (_, i) => ({
      id: `t${i}`,
      action: { type: "fetch", url: `https://svc.example.com/${i}?prev=\${outputs.t${Math.max(0, i - 1)}.n ?? 0}` },
      output: { n: i > 0 ? `$: outputs.t${i - 1}.n + 1` : 0 },
      on_error: [{ code: ["pre.%", "http.5%"], retry: 2 }],
    })),
  };
}

const small = [{ name: "checker_small", tasks: [{ id: "a", output: 1 }] }];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("the checker thread", () => {
  it("answers /healthz while the largest definitions are being checked, and refuses a check past the queue with 503", async () => {
    // The largest definition allowed and one almost as large (the body stays under --max-body):
    // seconds of checking, however fast the machine.
    const big = [chain("checker_big_a", 10_000), chain("checker_big_b", 8_000)];
    const deadline = Date.now() + 180_000;
    let busy: Awaited<ReturnType<typeof api.post>> | undefined;
    let bigAnswer: Awaited<ReturnType<typeof api.post>> | undefined;
    let healthAnsweredFirst = false;
    while (!busy && Date.now() < deadline) {
      let settled = false;
      const pending = api.post("/api/definitions/validate", big).finally(() => {
        settled = true;
      });
      // Probe with a small check until one is refused: the big check holds the only thread.
      while (!settled && Date.now() < deadline) {
        const probe = await api.post("/api/definitions/validate", small);
        if (probe.status === 503) {
          busy = probe;
          const health = await fetch(new URL("/healthz", server.url));
          expect(health.status).toBe(200);
          healthAnsweredFirst = !settled;
          break;
        }
        expect(probe.status, probe.text).toBe(200);
        await sleep(50);
      }
      bigAnswer = await pending;
      // A probe that took the thread first refuses the big check itself: send it again.
      if (!busy) expect(bigAnswer.status, bigAnswer.text.slice(0, 300)).toBe(503);
    }
    expect(busy, "a small check was refused while the big one ran").toBeDefined();
    expect(healthAnsweredFirst, "/healthz answered while the big check was still running").toBe(true);

    expect(busy!.body.code).toBe("unavailable");
    expect(busy!.headers.get("retry-after")).toBe("1");
    expect(busy!.body.error).toMatch(
      /^the definition checker is busy: 1 read checks are running and 0 are waiting, the most allowed \(--limit-checker-threads 1, --limit-checker-queue 0\); retry shortly$/,
    );

    // The big check answers exactly what the validate endpoint always did.
    expect(bigAnswer!.status, bigAnswer!.text.slice(0, 300)).toBe(200);
    expect(bigAnswer!.body.map((r: { process: string }) => r.process)).toEqual(["checker_big_a", "checker_big_b"]);
    expect(bigAnswer!.body[1].version).toBe(1);
    expect(bigAnswer!.body[0].tasks.t9999.output).toEqual({
      type: "object",
      properties: { n: { type: "integer" } },
      required: ["n"],
    });

    // Once the thread is free again, the refused check goes through.
    const again = await api.post("/api/definitions/validate", small);
    expect(again.status, again.text).toBe(200);
  }, 240_000);

  it("runs the upgrade verb's check on the write lane's thread: refused with 503 while a registration holds it, moving nothing", async () => {
    // Each probe upgrades a process pair never checked before (a checked pair's gates are kept,
    // docs/compat.md "The upgrade verb"), so every probe needs the thread.
    const PROBES = 80;
    const probe = (i: number, v: number) => ({
      name: `upgrade_probe_${i}`,
      tasks: [{ id: "w", action: { type: "external" } }],
      output: { v },
    });
    for (const v of [1, 2]) {
      const res = await api.put("/api/definitions/batch", {
        channel: "probes",
        definitions: Array.from({ length: PROBES }, (_, i) => probe(i, v)),
      });
      expect(res.status, res.text.slice(0, 300)).toBe(200);
    }
    const ids: string[] = [];
    for (let i = 0; i < PROBES; i++) {
      const res = await api.post("/api/instances", { process: `upgrade_probe_${i}`, version: 1 });
      expect(res.status, res.text).toBe(200);
      ids.push(res.body.id);
    }
    const big = [chain("checker_upgrade_big_a", 10_000), chain("checker_upgrade_big_b", 8_000)];
    let next = 0;
    let busy: { res: Awaited<ReturnType<typeof api.post>>; id: string } | undefined;
    while (!busy && next < PROBES) {
      let settled = false;
      // A registration is a write: it holds the write lane's one thread, as the upgrade's check needs.
      const pending = api.put("/api/definitions/batch", { definitions: big }).finally(() => {
        settled = true;
      });
      while (!settled && next < PROBES) {
        const id = ids[next++]!;
        const res = await api.post(`/api/instances/${id}/upgrade`, { from_version: 1, to_version: 2 });
        if (res.status === 503) {
          busy = { res, id };
          break;
        }
        expect(res.status, res.text).toBe(200);
        expect(res.body.upgraded).toBe(true);
        await sleep(50);
      }
      await pending;
    }
    expect(busy, `an upgrade was refused while the big check ran (${next} probes)`).toBeDefined();
    expect(busy!.res.body.code).toBe("unavailable");
    expect(busy!.res.headers.get("retry-after")).toBe("1");
    expect(busy!.res.body.error).toBe(
      "the definition checker is busy: 1 write checks are running and 0 are waiting, the most allowed (--limit-checker-threads 1, --limit-checker-queue 0); retry shortly",
    );
    const untouched = await api.get(`/api/instances/${busy!.id}`);
    expect(untouched.body.version).toBe(1);
    // Sent again once the thread is free, the same upgrade goes through.
    const again = await api.post(`/api/instances/${busy!.id}/upgrade`, { from_version: 1, to_version: 2 });
    expect(again.status, again.text).toBe(200);
    expect(again.body.upgraded).toBe(true);
  }, 240_000);

  it("runs registration and compat checks on the thread with the same answers and refusals", async () => {
    const def = chain("checker_reg", 50);
    const put = await api.put("/api/definitions", def);
    expect(put.status, put.text).toBe(200);
    expect(put.body).toEqual({ name: "checker_reg", saved: true, version: 1 });
    // Unchanged: the hash computed on the thread equals the stored one.
    expect((await api.put("/api/definitions", def)).body).toEqual({ name: "checker_reg", saved: false, version: 1 });

    const bad = await api.put("/api/definitions", { name: "checker_bad", tasks: [{ id: "a", goto: "nowhere" }] });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe("invalid");
    expect(bad.body.fields[0].path).toMatch(/^body\.tasks\[0\]/);

    const changed = { ...def, tasks: def.tasks.slice(0, 49) };
    const compat = await api.post("/api/definitions/compat", {
      from: { versions: { checker_reg: 1 } },
      to: { definitions: [changed] },
    });
    expect(compat.status, compat.text).toBe(200);
    expect(compat.body.processes[0]).toMatchObject({ name: "checker_reg", status: "compared", from: 1, to: null });
  });

  it("keeps numbers JavaScript cannot hold exactly, digit for digit, through the thread", async () => {
    // Written as text: a JavaScript number literal could not hold these.
    const text =
      '{"name":"checker_exact","tasks":[{"id":"a","output":' +
      '{"big":12345678901234567890123,"fine":0.1000000000000000055511151231257827}}]}';
    const put = await fetch(new URL("/api/definitions", server.url), {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: text,
    });
    expect(put.status).toBe(200);
    const stored = await fetch(new URL("/api/definitions/checker_exact/versions/1", server.url));
    const body = await stored.text();
    expect(body).toContain('"big":12345678901234567890123');
    expect(body).toContain('"fine":0.1000000000000000055511151231257827');
    const validated = await fetch(new URL("/api/definitions/validate", server.url), {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: `[${text}]`,
    });
    expect(validated.status).toBe(200);
    expect(await validated.text()).toContain('"version":1');
  });

  it("refuses a comparison past --limit-compat-steps with a 400 naming it, instead of holding the thread", async () => {
    const forwards = chain("checker_wide", 400);
    const backwards = { ...forwards, tasks: [...forwards.tasks].reverse() };
    const res = await api.post("/api/definitions/compat", {
      from: { definitions: [backwards] },
      to: { definitions: [forwards] },
    });
    expect(res.status, res.text.slice(0, 300)).toBe(400);
    expect(res.body.code).toBe("invalid");
    expect(res.body.error).toContain('comparing the two versions of "checker_wide" takes more work than the limit of');
    expect(res.body.error).toContain("(--limit-compat-steps, docs/limits.md)");
    // The thread is free again at once.
    expect((await api.post("/api/definitions/validate", small)).status).toBe(200);
  });
});
