import type { ActionSpec, Permission } from "@baton/actions";
import { describe, expect, it } from "vitest";
import { ApiError } from "../http/api-error.js";
import { admits, admittingPermissions, authorize, isPermission } from "./permissions.js";

function action(permissions: Permission[] | "public"): ActionSpec {
  return {
    name: "x",
    method: "get",
    path: "/x",
    tag: "t",
    summary: "s",
    description: "d",
    permissions,
    scope: { by: "none" },
    responses: {},
    errors: [],
  };
}

function forbidden(perms: string[], permissions: Permission[] | "public"): ApiError | undefined {
  try {
    authorize({ actor: "token:t", perms, scopes: null }, action(permissions));
    return undefined;
  } catch (error) {
    return error as ApiError;
  }
}

describe("permissions", () => {
  it("admit with any one of the listed permissions", () => {
    expect(admits(["worker"], action(["worker", "read"]))).toBe(true);
    expect(admits(["read"], action(["worker", "read"]))).toBe(true);
    expect(admits(["operate", "deploy"], action(["worker", "read"]))).toBe(false);
  });

  it("form a flat set: deploy does not imply read, read does not imply worker", () => {
    expect(admits(["deploy"], action(["read"]))).toBe(false);
    expect(admits(["read"], action(["worker"]))).toBe(false);
    expect(admits(["operate"], action(["deploy"]))).toBe(false);
  });

  it("let admin through everything, including endpoints that declare nothing", () => {
    expect(admits(["admin"], action(["worker"]))).toBe(true);
    expect(admits(["admin"], action([]))).toBe(true);
    expect(admits(["read", "deploy", "operate", "worker"], action([])), "declaring nothing means admin only").toBe(
      false,
    );
  });

  it("need nothing on public endpoints", () => {
    expect(admits([], action("public"))).toBe(true);
    expect(admittingPermissions(action("public"))).toBe("public");
  });

  it("ignore names that are not permissions", () => {
    expect(admits(["Admin", "root", "*"], action(["read"]))).toBe(false);
    expect(isPermission("admin")).toBe(true);
    expect(isPermission("Admin")).toBe(false);
    expect(isPermission(undefined)).toBe(false);
  });

  it("refuse with 403 forbidden naming what would admit the call", () => {
    const error = forbidden(["read"], ["deploy"]);
    expect(error).toBeInstanceOf(ApiError);
    expect(error?.code).toBe("forbidden");
    expect(error?.status).toBe(403);
    expect(error?.message).toBe("this endpoint needs one of the permissions: deploy, admin (the credential has read)");
    expect(forbidden([], [])?.message, "admin-only endpoints name admin alone").toBe(
      "this endpoint needs the permission: admin (the credential has no permissions)",
    );
  });

  it("name only permissions from the fixed list, never a credential's own text", () => {
    const claimText = '<script>alert(1)</script>", "admin';
    expect(forbidden(["read", claimText, "root"], ["deploy"])?.message).toBe(
      "this endpoint needs one of the permissions: deploy, admin (the credential has read)",
    );
    expect(forbidden([claimText], ["deploy"])?.message).toBe(
      "this endpoint needs one of the permissions: deploy, admin (the credential has no permissions)",
    );
  });

  it("authorize returns quietly when admitted", () => {
    expect(forbidden(["operate"], ["operate"])).toBeUndefined();
    expect(forbidden([], "public")).toBeUndefined();
  });
});
