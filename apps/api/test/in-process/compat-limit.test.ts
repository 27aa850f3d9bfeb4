// docs/limits.md (--limit-compat-steps): the upgrade verb's compatibility check stops at its work
// bound and refuses with 409 naming the flag, instead of holding the event loop.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { upgradeTree } from "../../src/engine/trees/upgrade.js";
import { Refusal } from "../../src/refusal.js";
import { type Harness, openHarness } from "../support/engine-harness.js";

let h: Harness;
beforeAll(async () => {
  h = await openHarness();
});
afterAll(async () => h?.close());

/** n external tasks, each reading the previous one's output; `reversed` runs them the other way round. */
function waits(n: number, reversed: boolean) {
  const tasks = Array.from({ length: n }, (_, i) => ({
    id: `t${i}`,
    action: { type: "external", input: { prev: i > 0 ? `$: outputs.t${i - 1}` : null } },
  }));
  return { name: "waits", tasks: reversed ? tasks.reverse() : tasks };
}

describe("upgrade past --limit-compat-steps", () => {
  it("refuses with 409 naming the flag when the check passes its work bound, moving nothing", async () => {
    expect(await h.deploy(waits(80, true))).toBe(1);
    expect(await h.deploy(waits(80, false))).toBe(2);
    const id = await h.start("waits", {}, 1);
    await h.tick();
    expect((await h.get(id)).status).toBe("running");
    const refused = await upgradeTree(
      h.db,
      h.clock,
      id,
      1,
      2,
      "token:op",
      h.upgradeCheck({ maxCompatSteps: 10_000 }),
    ).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(Refusal);
    expect((refused as Refusal).kind).toBe("conflict");
    expect((refused as Refusal).message).toContain(
      "takes more work than the limit of 10000 steps (--limit-compat-steps",
    );
    const row = await h.get(id);
    expect(row.status).toBe("running");
  });
});
