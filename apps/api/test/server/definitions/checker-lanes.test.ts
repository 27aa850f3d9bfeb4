// biome-ignore-all lint/suspicious/noTemplateCurlyInString: "${ }" is the definition language's interpolation
// Reads cannot starve writes on the checker (docs/limits.md "Two lanes"): POST
// /definitions/validate needs only `read`, and nine validations of a 1.7 MB definition once
// held the one checker thread and filled its queue of 8, so a deploy answered 503 for 49 s.
// Registrations and upgrades now run in a lane of their own. Ordering, not timing: the deploy
// and the upgrade answer 200 while validations sent before them are still being checked.
import { client, startServer, type TestServer } from "@baton/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

let server: TestServer;
let api: ReturnType<typeof client>;

beforeAll(async () => {
  // The defaults: --limit-checker-threads 1, --limit-checker-queue 8.
  server = await startServer({ args: ["--poll", "0"] });
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

describe("the checker's lanes", () => {
  it("registers and upgrades while nine large validations fill the read lane, and refuses only validations past its queue", async () => {
    const parked = { name: "lanes_parked", tasks: [{ id: "w", action: { type: "external" } }], output: { v: 1 } };
    expect((await api.put("/api/definitions", parked)).status).toBe(200);
    const started = await api.post("/api/instances", { process: "lanes_parked" });
    expect(started.status, started.text).toBe(200);
    expect((await api.put("/api/definitions", { ...parked, output: { v: 2 } })).status).toBe(200);

    // 2,000 tasks (400 KB): seconds of checking each on a loaded machine, nine of them tens of seconds.
    const big = JSON.stringify([chain("lanes_big", 2_000)]);
    // Twelve at once: one is checked, eight wait, three are refused, whatever order they arrive in
    // (they all arrive while the first check runs).
    let settled = 0;
    let firstRefusal!: (res: Awaited<ReturnType<typeof api.post>>) => void;
    const refused = new Promise<Awaited<ReturnType<typeof api.post>>>((resolve) => {
      firstRefusal = resolve;
    });
    const validations = Array.from({ length: 12 }, () =>
      api.post("/api/definitions/validate", big).then((res) => {
        if (res.status === 503) firstRefusal(res);
        else settled++;
        return res;
      }),
    );
    const tenth = await refused;
    expect(tenth.body.error).toBe(
      "the definition checker is busy: 1 read checks are running and 8 are waiting, the most allowed (--limit-checker-threads 1, --limit-checker-queue 8); retry shortly",
    );

    const deploy = await api.put("/api/definitions", { name: "lanes_deploy", tasks: [{ id: "a", output: 1 }] });
    expect(deploy.status, deploy.text).toBe(200);
    expect(deploy.body).toEqual({ name: "lanes_deploy", saved: true, version: 1 });
    const upgrade = await api.post(`/api/instances/${started.body.id}/upgrade`, { from_version: 1, to_version: 2 });
    expect(upgrade.status, upgrade.text).toBe(200);
    expect(upgrade.body.upgraded).toBe(true);
    expect(settled, "the deploy and the upgrade did not wait for the validations").toBeLessThan(9);

    const statuses = (await Promise.all(validations)).map((res) => res.status).sort();
    expect(statuses).toEqual([...Array(9).fill(200), ...Array(3).fill(503)]);
  }, 240_000);
});
