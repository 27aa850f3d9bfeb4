import {
  client,
  onPostgres,
  type Pgbouncer,
  type PrivatePostgres,
  startPgbouncer,
  startPrivatePostgres,
  startServer,
  type TestServer,
  until,
} from "@baton/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deploy, start } from "../../support/instances-fixtures.js";

// Behind PgBouncer in session mode (docs/deploy.md "Connection poolers"): two replicas start
// together through it (the migration's session advisory lock), run instances to the end (named
// prepared statements, transaction-scoped advisory locks of registrations) and count them.
// PostgreSQL only; Debian's pgbouncer.

let pg: PrivatePostgres;
let bouncer: Pgbouncer;
const servers: TestServer[] = [];

describe.skipIf(!onPostgres)("two replicas behind PgBouncer in session mode", () => {
  beforeAll(async () => {
    pg = await startPrivatePostgres();
    bouncer = await startPgbouncer(pg.url, "session");
    servers.push(
      ...(await Promise.all([0, 1].map(() => startServer({ database: bouncer.url, args: ["--poll", "20"] })))),
    );
  });
  afterAll(async () => {
    for (const s of servers) await s.stop();
    await bouncer?.stop();
    await pg?.destroy();
  });

  it("migrate once, register, run and count instances through the pooler", async () => {
    const [a, b] = servers.map((s) => client(s.url));
    await deploy(a!, { name: "pooled", tasks: [{ id: "first" }, { id: "second" }] });
    await deploy(b!, { name: "pooled", tasks: [{ id: "first" }, { id: "second" }, { id: "third" }] });
    for (let i = 0; i < 20; i++) {
      await start(a!, { process: "pooled", version: 1 });
      await start(b!, { process: "pooled", version: 2 });
    }
    await until("all 40 completed", async () => {
      const res = await a!.get("/api/instances/counts?process=pooled&status=completed");
      return res.body.total === 40 ? true : undefined;
    });
    const byVersion = await b!.get("/api/instances/counts?process=pooled&by=status&created_after=0");
    expect(byVersion.body).toMatchObject({ total: 40, groups: [{ status: "completed", count: 40 }] });
    for (const s of servers) expect(s.stderr()).not.toMatch(/"level":"error"/);
  });
});
