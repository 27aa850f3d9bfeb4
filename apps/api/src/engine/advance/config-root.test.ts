import { describe, expect, it } from "vitest";
import { globalGrants, grantedEnv } from "./config-root.js";

describe("globals granted to scopes", () => {
  const env = { BATON_GLOBAL_LEDGER_KEY: "l", BATON_GLOBAL_SHARED: "s", BATON_LEDGER_EU_OWN: "o" };

  it("hide a global shared with other scopes only, and nothing else", () => {
    const grants = globalGrants(["LEDGER_KEY=ledger-*", "LEDGER_KEY=audit", "SHARED"]);
    expect(grantedEnv(env, "ledger-eu", grants).BATON_GLOBAL_LEDGER_KEY).toBe("l");
    expect(grantedEnv(env, "audit", grants).BATON_GLOBAL_LEDGER_KEY).toBe("l");
    expect(grantedEnv(env, "orders", grants).BATON_GLOBAL_LEDGER_KEY).toBeUndefined();
    expect(grantedEnv(env, "orders", grants).BATON_GLOBAL_SHARED).toBe("s");
    expect(grantedEnv(env, "orders", grants).BATON_LEDGER_EU_OWN).toBe("o");
  });

  it("let a plain NAME share with every process even beside a scoped entry, and * share everything", () => {
    expect(grantedEnv(env, "orders", globalGrants(["LEDGER_KEY=ledger-*", "LEDGER_KEY"])).BATON_GLOBAL_LEDGER_KEY).toBe(
      "l",
    );
    expect(grantedEnv(env, "orders", globalGrants(["LEDGER_KEY", "LEDGER_KEY=ledger-*"])).BATON_GLOBAL_LEDGER_KEY).toBe(
      "l",
    );
    expect(grantedEnv(env, "orders", globalGrants(["*"]))).toBe(env);
  });
});
