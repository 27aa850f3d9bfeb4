// Scoped workers (docs/auth.md "Scopes", "Trees, external tasks and objects"): eight workers of
// two teams claim at once from one queue holding both teams' tasks. Each claims only tasks of
// the processes its token's scopes reach, no task is claimed twice, and together they claim
// every task.
import { request, sharedDatabase, type SharedDatabase, startServer, type TestServer, until } from "@baton/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { askOnce } from "../../support/definitions.js";
import { bearer, bootstrapToken } from "../../support/auth-fixtures.js";

const PER_TEAM = 24;
const TEAMS = {
  orders: { process: "orders-pick", scope: "orders-*" },
  billing: { process: "billing-pick", scope: "billing-*" },
};

let database: SharedDatabase;
let server: TestServer;
let admin: string;

const call = async (credential: string, method: string, path: string, body?: unknown) => {
  const res = await request(server.url, method, path, body, bearer(credential));
  if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${res.text}`);
  return res.body;
};

beforeAll(async () => {
  database = await sharedDatabase();
  admin = await bootstrapToken(database, "scoped claims admin", "admin");
  server = await startServer({ database: database.location, args: ["--auth", "token", "--poll", "0"] });
  for (const team of Object.values(TEAMS)) {
    await call(admin, "PUT", "/api/definitions", askOnce(team.process));
    for (let i = 0; i < PER_TEAM; i++) await call(admin, "POST", "/api/instances", { process: team.process });
  }
  await until("every task to park", async () => {
    await call(admin, "POST", "/api/tick", {});
    const waiting = await call(admin, "GET", "/api/external-tasks?limit=100");
    return waiting.items.length === 2 * PER_TEAM ? true : undefined;
  });
}, 180_000);

afterAll(async () => {
  await server?.stop();
  await database?.dispose();
});

describe("eight scoped workers of two teams claiming at once", () => {
  it("each claim only their own team's tasks, none twice, all of them together", async () => {
    const workers = await Promise.all(
      Object.entries(TEAMS).flatMap(([team, { scope }]) =>
        [1, 2, 3, 4].map(async (n) => {
          const created = await call(admin, "POST", "/api/tokens", {
            label: `${team} worker ${n}`,
            perms: ["worker"],
            scopes: [scope],
          });
          return { id: `${team}-${n}`, scope, token: created.token as string };
        }),
      ),
    );
    const claimed = await Promise.all(
      workers.map(async (worker) => {
        const items: { instance_id: string; process: string }[] = [];
        // Until the queue has nothing left for this worker: every task parked before the first claim.
        for (;;) {
          const res = await call(worker.token, "POST", "/api/external-tasks/claim", {
            worker_id: worker.id,
            limit: 2,
            lease_ms: 600_000,
          });
          if (res.items.length === 0) return { worker, items };
          items.push(...res.items);
        }
      }),
    );
    const foreign = claimed.flatMap(({ worker, items }) =>
      items
        .filter((item) => !item.process.startsWith(worker.scope.slice(0, -1)))
        .map((item) => `${worker.id}: ${item.process}`),
    );
    expect(foreign, "a worker claimed another team's task").toEqual([]);
    const ids = claimed.flatMap(({ items }) => items.map((item) => item.instance_id));
    expect(new Set(ids).size, "no task claimed twice").toBe(ids.length);
    expect(ids.length, "every task claimed").toBe(2 * PER_TEAM);
    for (const [team, { process }] of Object.entries(TEAMS)) {
      const ofTeam = claimed.filter(({ worker }) => worker.id.startsWith(team)).flatMap(({ items }) => items);
      expect(ofTeam.every((item) => item.process === process)).toBe(true);
      expect(ofTeam.length, `${team}'s workers claimed all of ${team}'s tasks`).toBe(PER_TEAM);
    }
  });
});
