import { describe, expect, it } from "vitest";
import { covers, isScopePattern, scopesWithin } from "./scope.js";

describe("scope patterns", () => {
  it("accept a process name, a prefix with a trailing star and the lone star", () => {
    for (const p of ["billing", "orders-*", "orders.v2_eu", "*", "o*"]) expect(isScopePattern(p), p).toBe(true);
  });

  it("refuse a star anywhere but at the end, upper case and empty patterns", () => {
    for (const p of ["*-orders", "or*ders", "Orders", "", "orders-**", " billing", 7])
      expect(isScopePattern(p)).toBe(false);
  });

  it("cover a name exactly and a prefix by its start; no scopes cover everything", () => {
    expect(covers(["billing"], "billing")).toBe(true);
    expect(covers(["billing"], "billing-eu")).toBe(false);
    expect(covers(["orders-*"], "orders-eu")).toBe(true);
    expect(covers(["orders-*"], "orders")).toBe(false);
    expect(covers(["*"], "anything")).toBe(true);
    expect(covers([], "anything")).toBe(false);
    expect(covers(null, "anything")).toBe(true);
  });

  it("let a scoped admin mint only scopes within its own", () => {
    expect(scopesWithin(["orders-eu-*", "orders-us"], ["orders-*"])).toBe(true);
    expect(scopesWithin(["orders-*"], ["orders-eu-*"])).toBe(false);
    expect(scopesWithin(["billing"], ["orders-*"])).toBe(false);
    expect(scopesWithin(null, ["orders-*"])).toBe(false);
    expect(scopesWithin(["anything-*"], null)).toBe(true);
    expect(scopesWithin(["*"], ["orders-*"])).toBe(false);
    expect(scopesWithin([], ["orders-*"])).toBe(true);
  });
});
