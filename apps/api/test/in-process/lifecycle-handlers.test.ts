import { stringifyJson } from "@baton/expr";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createChecker } from "../../src/definitions/checker.js";
import { freshInstanceRow, freshState } from "../../src/engine/starts/fresh-row.js";
import { lifecycleHandlers } from "../../src/handlers/lifecycle.js";
import type { ActionRequest } from "../../src/http/action-handler.js";
import { type ApiError, toApiError } from "../../src/http/api-error.js";
import type { Services } from "../../src/services.js";
import { newId } from "../../src/storage/ids.js";
import { instances } from "../../src/storage/schema/index.js";
import { type Harness, openHarness, quietLog } from "../support/engine-harness.js";

let h: Harness;
let services: Services;
let woken = 0;

beforeAll(async () => {
  h = await openHarness();
  services = {
    db: h.db,
    database: h.database,
    dbKind: h.database.kind,
    clock: h.clock,
    config: h.config,
    log: quietLog,
    workerId: "worker-a",
    engine: { ...h.engine, wake: () => void woken++ },
    // No check runs here: a checker starts no thread until its first job.
    checker: createChecker({ threads: 1, queue: 0 }),
  };
  await h.deploy({ name: "tree", tasks: [{ id: "only", output: "$: 1" }] });
});
afterAll(async () => {
  await h?.close();
});

/** A request for any of the four verbs: they share their params and take at most `force`. */
function request(id: string, query: { force?: boolean } = {}): any {
  const built: ActionRequest<"retryInstance"> = {
    action: {} as ActionRequest["action"],
    params: { id },
    query,
    body: undefined,
    principal: { actor: "token:ops", perms: ["operate"], scopes: null },
    headers: new Headers(),
  };
  return built;
}

/** A child row of `root` seeded straight into the table (the engine never spawned it). */
function childRow(root: string, child: string) {
  return freshInstanceRow({
    id: child,
    rootId: root,
    parentId: root,
    process: "tree",
    version: 1,
    task: "only",
    state: stringifyJson(freshState({})),
    now: h.clock.now(),
  });
}

async function apiError(promise: Promise<unknown>): Promise<ApiError> {
  try {
    await promise;
  } catch (error) {
    // Handlers throw domain refusals; the HTTP edge maps them to status and code.
    const mapped = toApiError(error);
    if (mapped) return mapped;
    throw error;
  }
  throw new Error("expected an ApiError");
}

describe("lifecycle handlers", () => {
  it("refuse a child id with 400 naming the root id to use", async () => {
    const root = await h.start("tree");
    const child = newId(h.clock.now());
    await h.db.insert(instances).values({
      ...childRow(root, child),
      spawnTask: "only",
      wakeAt: null,
    });
    for (const verb of ["pauseInstance", "resumeInstance", "cancelInstance", "retryInstance"] as const) {
      const error = await apiError(lifecycleHandlers[verb](request(child), services));
      expect(error.status, verb).toBe(400);
      expect(error.message).toContain(root);
    }
  });

  it("answers 404 for an unknown id and 400 for a malformed one", async () => {
    expect((await apiError(lifecycleHandlers.pauseInstance(request(newId(h.clock.now())), services))).status).toBe(404);
    expect((await apiError(lifecycleHandlers.cancelInstance(request("nope"), services))).status).toBe(400);
  });

  it("act on the whole tree, record the actor, and wake the engine after resume and retry", async () => {
    const root = await h.start("tree");
    const child = newId(h.clock.now());
    await h.db.insert(instances).values({ ...childRow(root, child), wakeAt: h.clock.now() + 60_000 });
    const paused = await lifecycleHandlers.pauseInstance(request(root), services);
    expect(paused).toEqual({ status: 200, body: { outcome: "paused", status: "paused", instances: 2 } });
    const before = woken;
    const resumed = await lifecycleHandlers.resumeInstance(request(root), services);
    expect(resumed).toEqual({ status: 200, body: { outcome: "resumed", status: "running", instances: 2 } });
    expect(woken, "resume wakes the pump").toBe(before + 1);
    const cancelled = await lifecycleHandlers.cancelInstance(request(root), services);
    expect(cancelled).toEqual({ status: 200, body: { outcome: "cancelled", status: "cancelled", instances: 2 } });
    const childView = await h.get(child);
    expect(childView.status).toBe("cancelled");
    expect(childView.wakeAt, "a cancelled row is never due").toBeNull();
    const logs = await h.logs(child);
    expect(logs.map((l) => [l.event, l.actor])).toEqual([
      ["instance.paused", "token:ops"],
      ["instance.resumed", "token:ops"],
      ["instance.cancelled", "token:ops"],
    ]);
    expect(await lifecycleHandlers.pauseInstance(request(root), services), "nothing to pause").toEqual({ status: 204 });
    const refused = await apiError(lifecycleHandlers.retryInstance(request(root), services));
    expect(refused.status).toBe(409);
  });

  it("cancel of a paused tree is immediate and final", async () => {
    const root = await h.start("tree");
    await lifecycleHandlers.pauseInstance(request(root), services);
    expect(await lifecycleHandlers.cancelInstance(request(root), services)).toEqual({
      status: 200,
      body: { outcome: "cancelled", status: "cancelled", instances: 1 },
    });
    const error = await apiError(lifecycleHandlers.resumeInstance(request(root), services));
    expect(error.status).toBe(409);
    expect(error.message).toContain("cancelled");
  });
});
