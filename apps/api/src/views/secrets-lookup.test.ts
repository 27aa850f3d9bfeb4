import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, openHarness } from "../../test/support/engine-harness.js";
import { keptViewSecrets, VIEW_SECRETS_KEPT, viewSecrets } from "./secrets-lookup.js";

let h: Harness;

beforeAll(async () => {
  h = await openHarness();
});
afterAll(async () => {
  await h?.close();
});

const env = { BATON_LEAF_TOKEN: "leaf-secret-0001", BATON_ROOT_TOKEN: "root-secret-0001" };
const secretConfig = {
  type: "object",
  properties: { token: { type: "string", secret: true } },
  required: ["token"],
};

describe("viewSecrets", () => {
  it("covers every process a root's child tasks name, transitively, and every version", async () => {
    await h.deploy({ name: "leaf", config_schema: secretConfig, tasks: [{ id: "only" }] });
    await h.deploy({ name: "middle", tasks: [{ id: "spawn", action: { type: "child", name: "leaf" } }] });
    await h.deploy({ name: "root", tasks: [{ id: "spawn", action: { type: "child", name: "middle" } }] });
    expect(await viewSecrets(h.db, env, "root", 3)).toEqual(["leaf-secret-0001"]);
    expect(await viewSecrets(h.db, env, "leaf", 3)).toEqual(["leaf-secret-0001"]);
    expect(await viewSecrets(h.db, env, "middle", 3)).toEqual(["leaf-secret-0001"]);
  });

  it("keeps its answer while the definition count holds, and reads again once a definition is registered", async () => {
    expect(await viewSecrets(h.db, env, "root", 3)).toEqual(["leaf-secret-0001"]);
    // Version 2 of root declares a secret of its own: a row read in the same snapshot as this
    // registration sees four definitions, and its views must redact the new secret too.
    await h.deploy({
      name: "root",
      config_schema: secretConfig,
      tasks: [{ id: "spawn", action: { type: "child", name: "middle" } }],
    });
    expect(await viewSecrets(h.db, env, "root", 3), "the count it was asked for is what it answers for").toEqual([
      "leaf-secret-0001",
    ]);
    expect((await viewSecrets(h.db, env, "root", 4)).sort()).toEqual(["leaf-secret-0001", "root-secret-0001"]);
  });

  it(`keeps at most ${VIEW_SECRETS_KEPT} root process names, the least recently viewed dropped first`, async () => {
    const seen = 4;
    expect((await viewSecrets(h.db, env, "root", seen)).sort()).toEqual(["leaf-secret-0001", "root-secret-0001"]);
    for (let i = 0; i < VIEW_SECRETS_KEPT + 10; i++)
      expect(await viewSecrets(h.db, env, `unknown-${i}`, seen)).toEqual([]);
    const kept = keptViewSecrets(h.db);
    expect(kept).toHaveLength(VIEW_SECRETS_KEPT);
    expect(kept[0]).toBe("unknown-10");
    expect(kept.at(-1)).toBe(`unknown-${VIEW_SECRETS_KEPT + 9}`);
    // A dropped name is looked up again, with the same answer.
    expect((await viewSecrets(h.db, env, "root", seen)).sort()).toEqual(["leaf-secret-0001", "root-secret-0001"]);
    expect(keptViewSecrets(h.db).at(-1)).toBe("root");
  });
});
