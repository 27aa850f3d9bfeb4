// The upgrade verb checks compatibility on the checker thread before it locks the tree
// (docs/compat.md "The upgrade verb"). What happens between the check and the lock is ordered
// here with the verb's afterCheck hook, never with timers: an advance that moves an instance
// in between is judged where the instance sits under the lock, and of two upgrades racing for
// one root (two operators, two replicas) exactly one moves it.
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { upgradeTree } from "../../src/engine/trees/upgrade.js";
import { Refusal } from "../../src/refusal.js";
import { instances } from "../../src/storage/schema/index.js";
import { type Harness, openHarness } from "../support/engine-harness.js";

let h: Harness;
beforeAll(async () => {
  h = await openHarness();
});
afterAll(async () => h?.close());

const HOUR = 3_600_000;
/** Parks on `a` (a delay) until the clock passes an hour, then waits on `b` (an external task). */
const relay = (name: string, a: unknown, b: unknown) => ({
  name,
  tasks: [
    { id: "a", action: a },
    { id: "b", action: b },
    { id: "c", output: { done: true } },
  ],
});
const DELAY = { type: "delay", for: "1h" };
const EXTERNAL = { type: "external" };

async function versionOf(id: string): Promise<number> {
  const [row] = await h.db.select({ version: instances.version }).from(instances).where(eq(instances.id, id));
  return row!.version;
}

/** An instance of `process` version 1, parked on task `a`. */
async function parkedOnA(process: string): Promise<string> {
  const id = await h.start(process, {}, 1);
  await h.tick();
  expect((await h.get(id)).task).toBe("a");
  return id;
}

const refusalOf = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error("expected a refusal");
    },
    (error: unknown) => {
      expect(error).toBeInstanceOf(Refusal);
      return error as Refusal;
    },
  );

describe("an advance between the upgrade's check and its lock", () => {
  it("refuses when the instance moved onto a task the new version cannot take it from", async () => {
    await h.deploy(relay("race_to_blocked", DELAY, EXTERNAL));
    await h.deploy(relay("race_to_blocked", DELAY, DELAY)); // v2: b changes kind, so b cannot move
    const control = await parkedOnA("race_to_blocked");
    expect(await upgradeTree(h.db, h.clock, control, 1, 2, "op", h.upgradeCheck())).toMatchObject({
      upgraded: true,
      moves: [{ instance_id: control, task: "a" }],
    });

    const id = await parkedOnA("race_to_blocked");
    const moved = async () => {
      await h.tick(2 * HOUR); // the delay ends: the instance moves to b and waits there
      expect((await h.get(id)).task).toBe("b");
    };
    const refused = await refusalOf(upgradeTree(h.db, h.clock, id, 1, 2, "op", h.upgradeCheck({ afterCheck: moved })));
    expect(refused.kind).toBe("conflict");
    expect(refused.message).toMatch(
      /^cannot upgrade "race_to_blocked" from version 1 to 2: an instance sits on task "b", and tasks\.b\.action \/type: /,
    );
    expect(await versionOf(id)).toBe(1);
    expect((await h.logs(id)).map((l) => l.event)).not.toContain("instance.upgraded");
  });

  it("moves the instance when it left the task that blocked it", async () => {
    await h.deploy(relay("race_to_free", DELAY, EXTERNAL));
    await h.deploy(relay("race_to_free", EXTERNAL, EXTERNAL)); // v2: a changes kind, so a cannot move
    const control = await parkedOnA("race_to_free");
    const blocked = await refusalOf(upgradeTree(h.db, h.clock, control, 1, 2, "op", h.upgradeCheck()));
    expect(blocked.message).toContain('an instance sits on task "a"');

    const id = await parkedOnA("race_to_free");
    const moved = async () => {
      await h.tick(2 * HOUR);
      expect((await h.get(id)).task).toBe("b");
    };
    expect(await upgradeTree(h.db, h.clock, id, 1, 2, "op", h.upgradeCheck({ afterCheck: moved }))).toEqual({
      upgraded: true,
      moves: [{ instance_id: id, process: "race_to_free", from_version: 1, to_version: 2, task: "b" }],
    });
    expect(await versionOf(id)).toBe(2);
  });
});

describe("two upgrades of one root racing", () => {
  it("moves the tree once: the second finds it no longer at from_version under the lock and answers 409", async () => {
    await h.deploy(relay("race_twice", DELAY, EXTERNAL));
    await h.deploy(relay("race_twice", DELAY, { type: "external", timeout: "1d" }));
    const id = await parkedOnA("race_twice");
    // Both pass their check before either takes the lock.
    let arrived = 0;
    let release!: () => void;
    const bothChecked = new Promise<void>((resolve) => {
      release = resolve;
    });
    const afterCheck = async () => {
      if (++arrived === 2) release();
      await bothChecked;
    };
    const results = await Promise.allSettled([
      upgradeTree(h.db, h.clock, id, 1, 2, "op-1", h.upgradeCheck({ afterCheck })),
      upgradeTree(h.db, h.clock, id, 1, 2, "op-2", h.upgradeCheck({ afterCheck })),
    ]);
    const moved = results.filter((r) => r.status === "fulfilled");
    const refused = results.flatMap((r) => (r.status === "rejected" ? [r.reason as Refusal] : []));
    expect(moved).toHaveLength(1);
    expect(moved[0]!.value).toMatchObject({ upgraded: true });
    expect(refused).toHaveLength(1);
    expect(refused[0]).toBeInstanceOf(Refusal);
    expect(refused[0]!.kind).toBe("conflict");
    expect(refused[0]!.message).toBe(`instance ${id} runs version 2 of "race_twice", not from_version 1`);
    expect(await versionOf(id)).toBe(2);
    expect((await h.logs(id)).filter((l) => l.event === "instance.upgraded")).toHaveLength(1);
  });
});
