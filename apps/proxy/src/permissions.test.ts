import { describe, expect, it } from "vitest";
import { permissionsFor, scopesFor } from "./permissions.js";

const map = {
  roles: { ops: ["read", "operate"], devs: ["read", "deploy"], "*": ["read"] },
  users: { "ann@example.com": ["admin"], "bob@example.com": [] },
};

describe("permissionsFor", () => {
  it("unions users[subject], roles of each group and roles['*'] without duplicates", () => {
    expect(permissionsFor({ subject: "ann@example.com", groups: ["ops", "devs"] }, map)).toEqual([
      "admin",
      "read",
      "operate",
      "deploy",
    ]);
  });

  it("gives everyone signed in roles['*']", () => {
    expect(permissionsFor({ subject: "zoe@example.com", groups: [] }, map)).toEqual(["read"]);
  });

  it("ignores groups that map to no role", () => {
    expect(
      permissionsFor({ subject: "bob@example.com", groups: ["unknown"] }, { roles: {}, users: map.users }),
    ).toEqual([]);
  });

  it("does not treat inherited object keys as subjects or groups", () => {
    expect(
      permissionsFor({ subject: "constructor", groups: ["toString", "__proto__"] }, { roles: {}, users: {} }),
    ).toEqual([]);
  });
});

describe("scopesFor", () => {
  const scopes = {
    roleScopes: { orders: ["orders-*"], billing: ["billing"] },
    userScopes: { "ann@example.com": ["reports"] },
  };

  it("unions user_scopes[subject] and role_scopes of each group, as permissions are", () => {
    expect(scopesFor({ subject: "ann@example.com", groups: ["orders", "billing"] }, scopes)).toEqual([
      "reports",
      "orders-*",
      "billing",
    ]);
  });

  it("leaves a person no entry names without scopes (every process), and one named with [] with none", () => {
    expect(scopesFor({ subject: "zoe@example.com", groups: ["ops"] }, scopes)).toBeNull();
    expect(scopesFor({ subject: "zoe@example.com", groups: [] }, { roleScopes: { "*": [] }, userScopes: {} })).toEqual(
      [],
    );
  });
});
