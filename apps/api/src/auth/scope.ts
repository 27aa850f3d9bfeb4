import { type ActionSpec, SCOPE_PATTERN_SOURCE, scopesCover } from "@baton/actions";
import { isUuid } from "../storage/ids.js";
import type { Db } from "../storage/db.js";
import { conflict, notFound } from "../refusal.js";
import {
  claimProcesses,
  objectHeldBy,
  ownProcessOf,
  processNamesMatching,
  rootProcessOf,
  scheduleProcessOf,
} from "../views/scope-targets.js";
import { ApiError } from "../http/api-error.js";
import type { Principal } from "./principal.js";

// The one authorization function of scopes (docs/auth.md "Scopes"). A credential's scopes are
// process-name patterns: a name (`billing`) or a prefix and a star (`orders-*`); `null` means
// no scopes, i.e. every process, the meaning every credential had before scopes existed. Each
// registry entry declares its rule (packages/actions scope-rule.ts); `enforceScope` applies the
// rules that the request itself decides, and the handlers of the other rules call
// `requireInScope` / `scopeFilter` here, never a check of their own.

/** The errors thrown because a target is outside the caller's scopes: the HTTP edge counts them (docs/metrics.md). */
export const SCOPE_REFUSALS = new WeakSet<Error>();

function counted<E extends Error>(error: E): E {
  SCOPE_REFUSALS.add(error);
  return error;
}

/** A credential's scopes: process-name patterns, or null for every process. */
export type Scopes = readonly string[] | null;

const PATTERN = new RegExp(SCOPE_PATTERN_SOURCE);

export function isScopePattern(value: unknown): value is string {
  return typeof value === "string" && PATTERN.test(value);
}

/** Whether `scopes` reach `process` (no scopes reach everything). */
export function covers(scopes: Scopes, process: string): boolean {
  return scopesCover(scopes, process);
}

/**
 * Whether every process `inner` reaches is one `outer` reaches: what a scoped admin may put
 * on a token it mints. A prefix pattern is within another prefix it extends.
 */
export function scopesWithin(inner: Scopes, outer: Scopes): boolean {
  if (outer === null) return true;
  if (inner === null) return false;
  return inner.every((p) =>
    p.endsWith("*")
      ? outer.some((q) => q.endsWith("*") && p.slice(0, -1).startsWith(q.slice(0, -1)))
      : covers(outer, p),
  );
}

/** A 403 for a write naming a process outside the caller's scopes; only the name the caller sent is repeated. */
export function outOfScope(process: string, where: string): ApiError {
  return counted(
    new ApiError(
      "forbidden",
      `process "${process}" (${where}) is outside the scopes of this credential; it reaches only processes its scopes name (GET /whoami lists them)`,
    ),
  );
}

/** Refuses (403) a write to `process` the caller's scopes do not reach. */
export function requireInScope(principal: Principal, process: string, where: string): void {
  if (!covers(principal.scopes, process)) throw outOfScope(process, where);
}

/**
 * The process names a list of a scoped caller may show, for a `process IN (…)` filter beside
 * the list's own (the same predicate, and index, as a `process` filter); null = no filter.
 */
export async function scopeFilter(db: Db, principal: Principal): Promise<string[] | null> {
  const scopes = principal.scopes;
  if (scopes === null) return null;
  if (scopes.includes("*")) return null;
  const exact = scopes.filter((p) => !p.endsWith("*"));
  const prefixes = scopes.filter((p) => p.endsWith("*")).map((p) => p.slice(0, -1));
  return processNamesMatching(db, exact, prefixes);
}

/**
 * The `unscoped` rule, right after the permission check (before the request is validated: a
 * scoped caller is refused whatever it sends, like a caller without the permission).
 */
export function refuseScoped(principal: Principal, action: ActionSpec): void {
  if (principal.scopes === null || action.scope.by !== "unscoped") return;
  throw counted(
    new ApiError(
      "forbidden",
      `${action.method.toUpperCase()} ${action.path} reaches every process at once: only a credential without scopes may call it`,
    ),
  );
}

/** The sentence a missing instance gets on `action`: the out-of-scope answer must be the very same. */
function missingInstance(action: ActionSpec, id: string): string {
  // The tree verbs name the id as sent (engine/trees/roots.ts requireRoot); the views quote it lower-cased.
  return action.method === "get" ? `instance "${id.toLowerCase()}" does not exist` : `instance ${id} does not exist`;
}

/**
 * Applies the rules a request itself decides, before its handler: `unscoped` refuses a
 * scoped caller, `path-process` and `schedule` answer 404 as for an unknown name, `instance`
 * as for a missing id, `body-process` refuses naming the field. Nothing is read for a caller
 * without scopes. The other rules are the handlers' (scope-rule.ts).
 */
export async function enforceScope(
  db: Db,
  principal: Principal,
  action: ActionSpec,
  params: Record<string, unknown>,
  body: unknown,
): Promise<void> {
  const scopes = principal.scopes;
  if (scopes === null) return;
  const rule = action.scope;
  switch (rule.by) {
    case "unscoped":
      return refuseScoped(principal, action);
    case "path-process": {
      const name = String(params[rule.param]);
      if (!covers(scopes, name)) throw counted(notFound(`process "${name}" is not registered`));
      return;
    }
    case "schedule": {
      // DELETE answers {deleted: false} for a missing schedule: its handler asks scheduleCovered.
      if (action.method === "delete") return;
      const name = String(params[rule.param]);
      const target = await scheduleProcessOf(db, name);
      if (target !== undefined && !covers(scopes, target)) {
        // Schedule names are one namespace for every scope: a put learns the name is taken, nothing more.
        if (action.method === "put")
          throw counted(
            conflict(
              `schedule name "${name}" is taken by a schedule this credential's scopes do not reach; choose another name`,
            ),
          );
        throw counted(notFound(`schedule "${name}" does not exist`));
      }
      const process = (body as Record<string, unknown> | undefined)?.process;
      if (typeof process === "string") requireInScope(principal, process, "body.process");
      return;
    }
    case "instance": {
      const id = String(params[rule.param]);
      // A malformed id is the handler's 400, as for everyone.
      if (!isUuid(id)) return;
      const root = await rootProcessOf(db, id.toLowerCase());
      if (root !== undefined && !covers(scopes, root)) throw counted(notFound(missingInstance(action, id)));
      return;
    }
    case "body-process": {
      const value = (body as Record<string, unknown> | undefined)?.[rule.field];
      if (typeof value === "string") requireInScope(principal, value, `body.${rule.field}`);
      return;
    }
    default:
      return;
  }
}

/**
 * The claim tokens among `tokens` that belong to a process outside the caller's scopes (by
 * `hash`, the engine's token hash): the handler answers them as tokens never issued, so a token
 * of another scope says nothing about its task (docs/auth.md "Scopes"). Empty without scopes.
 */
export async function tokensOutOfScope(
  db: Db,
  principal: Principal,
  tokens: readonly string[],
  hash: (token: string) => string,
): Promise<Set<string>> {
  if (principal.scopes === null || tokens.length === 0) return new Set();
  const processes = await claimProcesses(
    db,
    tokens.map((t) => hash(t)),
  );
  return new Set(
    tokens.filter((t) => {
      const process = processes.get(hash(t));
      return process !== undefined && !covers(principal.scopes, process);
    }),
  );
}

/** Refuses (404, as for a missing instance) a signal to an instance whose own process is out of scope. */
export async function requireSignalTarget(db: Db, principal: Principal, instanceId: string): Promise<void> {
  if (principal.scopes === null || !isUuid(instanceId)) return;
  const process = await ownProcessOf(db, instanceId.toLowerCase());
  if (process !== undefined && !covers(principal.scopes, process))
    throw counted(notFound(`instance ${instanceId} does not exist`));
}

/** Whether schedule `name` is one the caller reaches (a missing one counts as reached: it is simply missing). */
export async function scheduleCovered(db: Db, principal: Principal, name: string): Promise<boolean> {
  if (principal.scopes === null) return true;
  const target = await scheduleProcessOf(db, name);
  return target === undefined || covers(principal.scopes, target);
}

/** Whether the caller may fetch object `ref`: it can read an instance holding it (docs/auth.md "Scopes"). */
export async function objectReadable(db: Db, principal: Principal, ref: string): Promise<boolean> {
  const only = await scopeFilter(db, principal);
  return only === null || objectHeldBy(db, ref, only);
}
