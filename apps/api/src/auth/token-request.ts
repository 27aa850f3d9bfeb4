import { iso } from "../format.js";
import { PERMISSIONS, type Permission, SCOPES_MAX } from "@baton/actions";
import { isScopePattern } from "./scope.js";
import type { FieldProblem } from "../refusal.js";
import { isPermission } from "./permissions.js";

export const MAX_LABEL_LENGTH = 200;

export interface TokenRequest {
  label: string;
  /** null = no permissions (the token authenticates but is admitted nowhere). */
  perms: Permission[] | null;
  /**
   * Scope patterns (docs/auth.md "Scopes"): null = every process; undefined = not given (the
   * creator's own scopes, decided by the caller of issueToken).
   */
  scopes?: string[] | null;
  /** Unix ms on the service clock; null = never expires. */
  expiresAt: number | null;
}

export type TokenRequestCheck = { ok: true; value: TokenRequest } | { ok: false; problems: FieldProblem[] };

const FIELDS = new Set(["label", "perms", "scopes", "expires_in", "expires_at"]);

/**
 * Checks the body of POST /tokens (also what `tokens create` builds from its flags):
 * `label` and `perms` required, perms known names or null, at most one of `expires_in`
 * (ms from now) and `expires_at` (ISO 8601 date-time in the future).
 */
export function checkTokenRequest(body: unknown, now: number): TokenRequestCheck {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    return {
      ok: false,
      problems: [{ path: "", message: "expected an object {label, perms, expires_in?, expires_at?}" }],
    };
  }
  const input = body as Record<string, unknown>;
  const problems: FieldProblem[] = [];
  for (const key of Object.keys(input)) {
    if (!FIELDS.has(key))
      problems.push({ path: key, message: `unknown field; expected one of ${[...FIELDS].join(", ")}` });
  }

  const label = input.label;
  if (label === undefined) problems.push({ path: "label", message: "required: a name that says who uses the token" });
  else if (typeof label !== "string" || label.trim() === "")
    problems.push({ path: "label", message: "expected a non-empty string" });
  else if (label.length > MAX_LABEL_LENGTH)
    problems.push({ path: "label", message: `expected at most ${MAX_LABEL_LENGTH} characters, got ${label.length}` });

  let perms: Permission[] | null = null;
  if (!("perms" in input)) {
    problems.push({
      path: "perms",
      message: `required: an array of permission names (${PERMISSIONS.join(", ")}) or null`,
    });
  } else if (input.perms !== null) {
    if (!Array.isArray(input.perms)) {
      problems.push({
        path: "perms",
        message: `expected an array of permission names (${PERMISSIONS.join(", ")}) or null`,
      });
    } else {
      input.perms.forEach((name, i) => {
        if (!isPermission(name))
          problems.push({
            path: `perms[${i}]`,
            message: `${JSON.stringify(name)} is not a permission; expected one of ${PERMISSIONS.join(", ")}`,
          });
      });
      perms = [...new Set(input.perms.filter(isPermission))];
    }
  }

  let scopes: string[] | null | undefined;
  if (input.scopes === null) scopes = null;
  else if (input.scopes !== undefined) {
    if (!Array.isArray(input.scopes)) {
      problems.push({
        path: "scopes",
        message: "expected an array of process-name patterns (billing, orders-*) or null",
      });
    } else {
      if (input.scopes.length > SCOPES_MAX)
        problems.push({
          path: "scopes",
          message: `expected at most ${SCOPES_MAX} patterns, got ${input.scopes.length}`,
        });
      input.scopes.forEach((pattern, i) => {
        if (!isScopePattern(pattern))
          problems.push({
            path: `scopes[${i}]`,
            message: `${JSON.stringify(pattern)} is not a scope pattern; expected a process name, a prefix of one followed by * (orders-*), or *`,
          });
      });
      scopes = [...new Set(input.scopes.filter(isScopePattern))];
    }
  }

  let expiresAt: number | null = null;
  const { expires_in: expiresIn, expires_at: expiresAtText } = input;
  if (expiresIn !== undefined && expiresAtText !== undefined) {
    problems.push({ path: "expires_at", message: "give either expires_in or expires_at, not both" });
  } else if (expiresIn !== undefined) {
    if (typeof expiresIn !== "number" || !Number.isSafeInteger(expiresIn) || expiresIn <= 0) {
      problems.push({ path: "expires_in", message: "expected a positive integer number of milliseconds" });
    } else expiresAt = now + expiresIn;
  } else if (expiresAtText !== undefined) {
    const parsed =
      typeof expiresAtText === "string" && /^\d{4}-\d\d-\d\dT/.test(expiresAtText)
        ? Date.parse(expiresAtText)
        : Number.NaN;
    if (Number.isNaN(parsed))
      problems.push({ path: "expires_at", message: "expected an ISO 8601 date-time such as 2030-01-31T00:00:00Z" });
    else if (parsed <= now)
      problems.push({
        path: "expires_at",
        message: `must be in the future (the server's time is ${iso(now)})`,
      });
    else expiresAt = parsed;
  }

  if (problems.length) return { ok: false, problems };
  return {
    ok: true,
    value: { label: label as string, perms, expiresAt, ...(scopes === undefined ? {} : { scopes }) },
  };
}
