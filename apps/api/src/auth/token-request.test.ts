import { describe, expect, it } from "vitest";
import { checkTokenRequest } from "./token-request.js";

const NOW = Date.UTC(2026, 0, 1);

function problems(body: unknown): string[] {
  const check = checkTokenRequest(body, NOW);
  return check.ok ? [] : check.problems.map((p) => `${p.path}: ${p.message}`);
}

describe("checkTokenRequest", () => {
  it("accepts a label with known permissions and no expiry", () => {
    expect(checkTokenRequest({ label: "ci", perms: ["deploy", "read"] }, NOW)).toEqual({
      ok: true,
      value: { label: "ci", perms: ["deploy", "read"], expiresAt: null },
    });
  });

  it("keeps null perms as null and collapses repeated names", () => {
    expect(checkTokenRequest({ label: "x", perms: null }, NOW)).toMatchObject({ ok: true, value: { perms: null } });
    expect(checkTokenRequest({ label: "x", perms: ["read", "read"] }, NOW)).toMatchObject({
      ok: true,
      value: { perms: ["read"] },
    });
  });

  it("requires label and perms", () => {
    expect(problems({})).toEqual([
      "label: required: a name that says who uses the token",
      "perms: required: an array of permission names (worker, read, operate, deploy, admin) or null",
    ]);
  });

  it("names each unknown permission by its index", () => {
    expect(problems({ label: "x", perms: ["read", "superuser", 3] })).toEqual([
      'perms[1]: "superuser" is not a permission; expected one of worker, read, operate, deploy, admin',
      "perms[2]: 3 is not a permission; expected one of worker, read, operate, deploy, admin",
    ]);
  });

  it("refuses a blank or over-long label and perms that are not an array", () => {
    expect(problems({ label: "  ", perms: [] })).toEqual(["label: expected a non-empty string"]);
    expect(problems({ label: "x".repeat(201), perms: [] })).toEqual([
      "label: expected at most 200 characters, got 201",
    ]);
    expect(problems({ label: "x", perms: "admin" })[0]).toMatch(/^perms: expected an array/);
  });

  it("turns expires_in into an instant on the given clock", () => {
    expect(checkTokenRequest({ label: "x", perms: [], expires_in: 60_000 }, NOW)).toMatchObject({
      ok: true,
      value: { expiresAt: NOW + 60_000 },
    });
    expect(problems({ label: "x", perms: [], expires_in: 0 })).toEqual([
      "expires_in: expected a positive integer number of milliseconds",
    ]);
    expect(problems({ label: "x", perms: [], expires_in: 1.5 })).toEqual([
      "expires_in: expected a positive integer number of milliseconds",
    ]);
  });

  it("accepts expires_at in the future and refuses the past, garbage, and both expiry fields", () => {
    expect(checkTokenRequest({ label: "x", perms: [], expires_at: "2030-01-31T00:00:00Z" }, NOW)).toMatchObject({
      ok: true,
      value: { expiresAt: Date.UTC(2030, 0, 31) },
    });
    expect(problems({ label: "x", perms: [], expires_at: "2020-01-01T00:00:00Z" })).toEqual([
      "expires_at: must be in the future (the server's time is 2026-01-01T00:00:00.000Z)",
    ]);
    expect(problems({ label: "x", perms: [], expires_at: "next tuesday" })).toEqual([
      "expires_at: expected an ISO 8601 date-time such as 2030-01-31T00:00:00Z",
    ]);
    expect(problems({ label: "x", perms: [], expires_in: 1000, expires_at: "2030-01-31T00:00:00Z" })).toEqual([
      "expires_at: give either expires_in or expires_at, not both",
    ]);
  });

  it("refuses unknown fields and non-object bodies", () => {
    expect(problems({ label: "x", perms: [], token: "svc_sk_mine" })).toEqual([
      "token: unknown field; expected one of label, perms, scopes, expires_in, expires_at",
    ]);
    expect(problems([])).toEqual([": expected an object {label, perms, expires_in?, expires_at?}"]);
  });

  it("takes scope patterns, null for every process, and names a bad pattern by its index", () => {
    expect(checkTokenRequest({ label: "x", perms: ["read"], scopes: ["orders-*", "billing"] }, NOW)).toMatchObject({
      ok: true,
      value: { scopes: ["orders-*", "billing"] },
    });
    expect(checkTokenRequest({ label: "x", perms: ["read"], scopes: null }, NOW)).toMatchObject({
      ok: true,
      value: { scopes: null },
    });
    const omitted = checkTokenRequest({ label: "x", perms: ["read"] }, NOW);
    expect(omitted.ok && "scopes" in omitted.value, "omitted: the creator's scopes, decided by the caller").toBe(false);
    expect(problems({ label: "x", perms: [], scopes: ["orders-*", "*-bad"] })).toEqual([
      'scopes[1]: "*-bad" is not a scope pattern; expected a process name, a prefix of one followed by * (orders-*), or *',
    ]);
  });
});
