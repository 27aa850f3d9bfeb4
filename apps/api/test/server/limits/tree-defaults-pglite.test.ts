// docs/limits.md "Large trees on PGlite": on the embedded database --limit-children-per-visit
// and --limit-tree-instances default to 1,000 (PGlite runs each statement on the server's
// thread, so a verb or spawn over 10,000 rows held /healthz about a second); a flag given on
// the command line wins. PGlite only: on PostgreSQL the table's defaults (10,000) apply.
import { client, onPostgres, startServer, type TestServer, until } from "@baton/testkit";
import { afterEach, describe, expect, it } from "vitest";

let server: TestServer | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
});

async function fanOut(s: TestServer, children: number) {
  const api = client(s.url);
  for (const definition of [
    { name: "leaf", tasks: [{ id: "done" }] },
    {
      name: "fan",
      input_schema: { type: "object", properties: { items: { type: "array", items: { type: "object" } } } },
      tasks: [{ id: "each", action: { type: "child_list", name: "leaf", over: "$: input.items" } }],
    },
  ]) {
    const put = await api.put("/api/definitions", definition);
    expect(put.status, put.text).toBe(200);
  }
  const started = await api.post("/api/instances", {
    process: "fan",
    input: { items: Array.from({ length: children }, () => ({})) },
  });
  expect(started.status, started.text).toBe(200);
  const id = (started.body as { id: string }).id;
  return until(
    `instance ${id} settled`,
    async () => {
      const view = await api.get(`/api/instances/${id}`);
      const body = view.body as { status: string; error_code?: string; error_message?: string };
      return body.status === "running" ? undefined : body;
    },
    120_000,
    100,
  );
}

describe.skipIf(onPostgres)("tree defaults on the embedded database", () => {
  it("refuses a visit of 1,001 children with engine.spawn naming --limit-children-per-visit at 1000", async () => {
    server = await startServer();
    const settled = await fanOut(server, 1_001);
    expect(settled.status).toBe("failed");
    expect(settled.error_code).toBe("engine.spawn");
    expect(settled.error_message).toContain(
      "would start 1001 children; at most 1000 may be started by one task visit (--limit-children-per-visit)",
    );
  });

  it("lets the flags given on the command line raise them", async () => {
    server = await startServer({
      args: ["--limit-children-per-visit", "2000", "--limit-tree-instances", "2000"],
    });
    const settled = await fanOut(server, 1_001);
    expect(settled.status).toBe("completed");
  });
});
