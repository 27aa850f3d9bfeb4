// POST /instances/bulk/{verb} (extension, docs/api.md "Bulk verbs"): the single verb, root by
// root. Each root is its own transaction through exactly the function the single verb calls,
// so its rules, tree lock and log line (with the caller as actor) are the single verb's; a
// refusal is one root's outcome, not the call's.
import { BULK_LIMIT, type BulkVerb } from "@baton/actions";
import {
  cancelTree,
  type LifecycleResult,
  pauseTree,
  resumeTree,
  retryTree,
  selectRoots,
  upgradeTree,
} from "../engine/index.js";
import { scopeFilter } from "../auth/scope.js";
import type { ActionHandler, ActionHandlers } from "../http/action-handler.js";
import { invalid, Refusal } from "../refusal.js";
import type { Services } from "../services.js";
import { resetRoot } from "./reset.js";

type Body = Record<string, any>;
/** One root's outcome: a verb outcome, `unchanged` (nothing to do), or a refusal. */
type RootOutcome = { outcome: string } | { refused: Refusal };

const CURSOR_LIST = "bulk";

function encodeCursor(verb: BulkVerb, lastId: string): string {
  return Buffer.from(JSON.stringify({ l: CURSOR_LIST, v: verb, a: lastId })).toString("base64url");
}

function decodeCursor(verb: BulkVerb, text: string): string {
  let cursor: { l?: unknown; v?: unknown; a?: unknown };
  try {
    cursor = JSON.parse(Buffer.from(text, "base64url").toString("utf8"));
  } catch {
    cursor = {};
  }
  if (cursor?.l !== CURSOR_LIST || typeof cursor.a !== "string")
    throw invalid(`body field "cursor" is not a bulk cursor; pass next_cursor from the previous call unchanged`, [
      { path: "body.cursor", message: "not a cursor of a bulk verb" },
    ]);
  if (cursor.v !== verb)
    throw invalid(`body field "cursor" continues bulk ${String(cursor.v)}, not bulk ${verb}`, [
      { path: "body.cursor", message: `a cursor of bulk ${String(cursor.v)}` },
    ]);
  return cursor.a;
}

/** The next `limit` roots (plus one, to know whether more follow) in id order after the cursor. */
function nextRoots(
  services: Services,
  verb: BulkVerb,
  body: Body,
  limit: number,
  only: string[] | null,
): Promise<string[]> {
  const after = () => (body.cursor === undefined ? undefined : decodeCursor(verb, body.cursor));
  return selectRoots(services.db, body, after, limit + 1, verb === "upgrade" ? body.from_version : undefined, only);
}

const lifecycle = (result: LifecycleResult): RootOutcome => ({ outcome: result.outcome ?? "unchanged" });

function runVerb(services: Services, verb: BulkVerb, rootId: string, actor: string | null, body: Body) {
  const { db, clock } = services;
  switch (verb) {
    case "pause":
      return pauseTree(db, clock, rootId, actor).then(lifecycle);
    case "resume":
      return resumeTree(db, clock, rootId, actor).then(lifecycle);
    case "cancel":
      return cancelTree(db, clock, rootId, actor).then(lifecycle);
    case "retry":
      return retryTree(db, clock, rootId, actor, body.force === true).then(lifecycle);
    case "upgrade":
      return upgradeTree(db, clock, rootId, body.from_version, body.to_version, actor, {
        checker: services.checker,
        maxCompatSteps: services.config.limits.compatSteps,
      }).then((result): RootOutcome => ({ outcome: result.upgraded ? "upgraded" : "unchanged" }));
    case "reset":
      return resetRoot(
        services,
        rootId,
        body.to_task,
        { force: body.force === true, paused: body.paused === true },
        actor,
      ).then((): RootOutcome => ({ outcome: "reset" }));
  }
}

type BulkAction =
  | "bulkPauseInstances"
  | "bulkResumeInstances"
  | "bulkCancelInstances"
  | "bulkRetryInstances"
  | "bulkUpgradeInstances"
  | "bulkResetInstances";

function bulk<N extends BulkAction>(verb: BulkVerb): ActionHandler<N> {
  return async (request, services) => {
    const body: Body = (request.body ?? {}) as Body;
    const limit = Number(body.limit ?? BULK_LIMIT.default);
    // docs/auth.md "Scopes": a scoped caller's bulk verb selects (and previews) only its own roots.
    const selected = await nextRoots(services, verb, body, limit, await scopeFilter(services.db, request.principal));
    const roots = selected.slice(0, limit);
    const next_cursor = selected.length > limit ? encodeCursor(verb, roots[roots.length - 1]!) : null;
    if (body.dry_run === true)
      return {
        body: { dry_run: true, counts: { matched: roots.length }, ids: { matched: roots }, refused: [], next_cursor },
      };
    const ids: Record<string, string[]> = {};
    const refused: Array<{ id: string; code: string; error: string }> = [];
    // One root at a time: each holds its tree lock only for its own transaction, so the engine
    // and other callers interleave between roots rather than waiting for the whole batch.
    for (const rootId of roots) {
      let result: RootOutcome;
      try {
        result = await runVerb(services, verb, rootId, request.principal.actor, body);
      } catch (error) {
        if (!(error instanceof Refusal)) throw error;
        result = { refused: error };
      }
      if ("refused" in result) {
        refused.push({ id: rootId, code: result.refused.kind, error: result.refused.message });
        (ids.refused ??= []).push(rootId);
      } else (ids[result.outcome] ??= []).push(rootId);
    }
    if (verb === "resume" || verb === "retry" || verb === "reset") services.engine.wake();
    const counts = Object.fromEntries(Object.entries(ids).map(([outcome, list]) => [outcome, list.length]));
    return { body: { dry_run: false, counts, ids, refused, next_cursor } };
  };
}

export const bulkHandlers: ActionHandlers = {
  bulkPauseInstances: bulk("pause"),
  bulkResumeInstances: bulk("resume"),
  bulkCancelInstances: bulk("cancel"),
  bulkRetryInstances: bulk("retry"),
  bulkUpgradeInstances: bulk("upgrade"),
  bulkResetInstances: bulk("reset"),
};
