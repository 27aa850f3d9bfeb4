import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, openHarness } from "../../test/support/engine-harness.js";
import { serverSecrets } from "./secrets-lookup.js";

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

describe("serverSecrets", () => {
  it("holds the secret values of every registered definition, whatever tree a view shows", async () => {
    await h.deploy({ name: "leaf", config_schema: secretConfig, tasks: [{ id: "only" }] });
    await h.deploy({ name: "unrelated", tasks: [{ id: "only" }] });
    expect(await serverSecrets(h.db, env)).toEqual(["leaf-secret-0001"]);
    expect(await serverSecrets(h.db, env, 2)).toEqual(["leaf-secret-0001"]);
  });

  it("keeps its answer while the definition count holds, and reads again once a definition is registered", async () => {
    await h.deploy({ name: "root", config_schema: secretConfig, tasks: [{ id: "only" }] });
    // A row read in the same snapshot as an older count is answered for that count.
    expect(await serverSecrets(h.db, env, 2), "the count it was asked for is what it answers for").toEqual([
      "leaf-secret-0001",
    ]);
    expect((await serverSecrets(h.db, env, 3)).sort()).toEqual(["leaf-secret-0001", "root-secret-0001"]);
    expect((await serverSecrets(h.db, env)).sort()).toEqual(["leaf-secret-0001", "root-secret-0001"]);
  });
});
