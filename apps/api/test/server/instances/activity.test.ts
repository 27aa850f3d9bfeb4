// GET /instances/activity (docs/api.md "Activity over time"): roots that completed, failed and
// raised, per slice of a window and per process, from real runs driven by POST /tick.
import { client, startServer, type TestServer, until } from "@baton/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Api, deploy, start } from "../../support/instances-fixtures.js";

let server: TestServer;
let api: Api;

const FAILS = {
  name: "fails",
  tasks: [{ id: "call", action: { type: "fetch", url: "http://127.0.0.1:1/x", method: "get" } }],
};
const RAISES = { name: "raises", tasks: [{ id: "no", switch: [{ raise: { code: "declined", message: "no" } }] }] };
const DONE = { name: "done", tasks: [{ id: "ok", output: { n: 1 } }] };
/** A tree: the root and its two children complete, and only the root counts. */
const TREE = {
  name: "tree",
  tasks: [{ id: "kids", action: { type: "child_map", children: { a: { name: "done" }, b: { name: "done" } } } }],
};

beforeAll(async () => {
  server = await startServer({ args: ["--poll", "0"] });
  api = client(server.url);
  for (const definition of [FAILS, RAISES, DONE, TREE]) await deploy(api, definition);
  for (const process of ["fails", "fails", "raises", "done", "tree"]) await start(api, { process });
  await until("every root settled", async () => {
    await api.post("/api/tick", {});
    const counts = await api.get("/api/instances/counts?by=status&status=running,failing");
    return counts.body.total === 0 ? true : undefined;
  });
});

afterAll(async () => {
  await server?.stop();
});

type Group = { at: string; process: string; status: string; count: number };
const totals = (groups: Group[]) =>
  Object.fromEntries(
    [...new Set(groups.map((g) => `${g.process} ${g.status}`))]
      .sort()
      .map((k) => [k, groups.filter((g) => `${g.process} ${g.status}` === k).reduce((s, g) => s + g.count, 0)]),
  );

describe("GET /api/instances/activity", () => {
  it("counts the roots settled in the last hour per process and status, in one-minute slices, children apart", async () => {
    const res = await api.get("/api/instances/activity?window=hour");
    expect(res.status, res.text).toBe(200);
    expect(res.body.window).toBe("hour");
    expect(res.body.bucket_ms).toBe(60_000);
    expect(Date.parse(res.body.to) - Date.parse(res.body.from)).toBe(3_600_000);
    expect(Date.parse(res.body.to) % 60_000, "slices are aligned").toBe(0);
    expect(totals(res.body.groups)).toEqual({
      "done completed": 1,
      "fails failed": 2,
      "raises raised": 1,
      "tree completed": 1,
    });
    for (const group of res.body.groups as Group[]) {
      expect(Date.parse(group.at) % 60_000).toBe(0);
      expect(Date.parse(group.at)).toBeGreaterThanOrEqual(Date.parse(res.body.from));
    }
    expect(res.body.truncated).toBe(false);
  });

  it("takes one process, and the day by default", async () => {
    const res = await api.get("/api/instances/activity?process=fails");
    expect(res.body.window).toBe("day");
    expect(res.body.bucket_ms).toBe(1_800_000);
    expect(totals(res.body.groups)).toEqual({ "fails failed": 2 });
  });

  it("refuses a window it does not know, naming the ones it does", async () => {
    const res = await api.get("/api/instances/activity?window=month");
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("invalid");
    expect(JSON.stringify(res.body.fields)).toContain("query.window");
  });

  it("leaves out what settled before the window: two hours on, the hour is empty and the day is not", async () => {
    await api.post("/api/tick", { advance_ms: 2 * 3_600_000 });
    expect((await api.get("/api/instances/activity?window=hour")).body.groups).toEqual([]);
    expect(totals((await api.get("/api/instances/activity?window=week")).body.groups)["fails failed"]).toBe(2);
  });
});
