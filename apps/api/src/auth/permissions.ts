import { type ActionSpec, PERMISSIONS, type Permission } from "@baton/actions";
import type { Principal } from "./principal.js";
import { ApiError } from "../http/api-error.js";

export function isPermission(value: unknown): value is Permission {
  return typeof value === "string" && (PERMISSIONS as readonly string[]).includes(value);
}

/**
 * The permissions that admit a call to `action`, `admin` always among them: any one is
 * enough (a flat set, not a hierarchy). "public" needs none. Declaring nothing means admin only.
 */
export function admittingPermissions(action: Pick<ActionSpec, "permissions">): readonly Permission[] | "public" {
  if (action.permissions === "public") return "public";
  return [...new Set<Permission>([...action.permissions, "admin"])];
}

export function admits(perms: readonly string[], action: Pick<ActionSpec, "permissions">): boolean {
  const needed = admittingPermissions(action);
  return needed === "public" || needed.some((p) => perms.includes(p));
}

/** Throws ApiError `forbidden` naming the permissions that would admit the call. */
export function authorize(principal: Principal, action: ActionSpec): void {
  if (admits(principal.perms, action)) return;
  const needed = admittingPermissions(action) as readonly Permission[];
  // Only names from the fixed list: a credential's own claim text is never echoed.
  const known = principal.perms.filter(isPermission);
  const held = known.length ? known.join(", ") : "no permissions";
  const wanted = needed.length === 1 ? `the permission: ${needed[0]}` : `one of the permissions: ${needed.join(", ")}`;
  throw new ApiError("forbidden", `this endpoint needs ${wanted} (the credential has ${held})`);
}
