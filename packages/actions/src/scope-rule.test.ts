import { describe, expect, it } from "vitest";
import type { JsonSchema } from "./action-spec.js";
import { registry } from "./registry.js";
import { SCOPE_KINDS } from "./scope-rule.js";

// Every endpoint says how a scoped credential is limited (docs/auth.md "Scopes"); the API
// enforces the declaration (apps/api/src/auth/scope.ts), so a rule naming a parameter the
// endpoint does not have would enforce nothing.

function propertiesOf(schema: JsonSchema | undefined): string[] {
  const properties = schema?.properties;
  return properties && typeof properties === "object" ? Object.keys(properties) : [];
}

describe("scope declarations", () => {
  it("declare a known scope rule on every registry entry", () => {
    const undeclared = registry.filter((a) => !a.scope || !SCOPE_KINDS.includes(a.scope.by)).map((a) => a.name);
    expect(undeclared, "entries without a scope rule of packages/actions/src/scope-rule.ts").toEqual([]);
  });

  it("name a path parameter or body field the endpoint really has", () => {
    const wrong: string[] = [];
    for (const a of registry) {
      const rule = a.scope;
      if (rule.by === "path-process" || rule.by === "instance" || rule.by === "schedule") {
        if (!propertiesOf(a.params).includes(rule.param) || !a.path.includes(`{${rule.param}}`))
          wrong.push(`${a.name}: no path parameter "${rule.param}"`);
      }
      if (rule.by === "body-process" && !propertiesOf(a.body).includes(rule.field))
        wrong.push(`${a.name}: no body field "${rule.field}"`);
    }
    expect(wrong).toEqual([]);
  });

  it("let only the public probes and nothing with a path parameter reach no process", () => {
    // The hook receiver's path names a hook, not a process, and it has no credential to scope:
    // what a hook may start or signal was decided by the deploy credential that created it.
    const open = registry.filter((a) => a.scope.by === "none" && a.name !== "receiveHook").map((a) => a.name);
    for (const name of open) {
      const a = registry.find((e) => e.name === name)!;
      expect(a.params, `${name} reaches no process yet takes a path parameter`).toBeUndefined();
    }
    expect(registry.filter((a) => a.permissions === "public").every((a) => a.scope.by === "none")).toBe(true);
  });

  it("treat every instance-id path as the instance's root's process", () => {
    const byId = registry.filter((a) => a.path.startsWith("/instances/{id}"));
    expect(byId.length).toBeGreaterThan(0);
    for (const a of byId) expect(a.scope, a.name).toEqual({ by: "instance", param: "id" });
  });
});
