// The bulk verbs as the instance list runs them (POST /instances/bulk/{verb}, docs/api.md "Bulk
// verbs"): the body of the list's filters and the panel's choice, and the calls one after the
// other with the cursor. The panel is components/bulk-actions.tsx.

export type { BulkVerb } from "@baton/actions";

import { BULK_ACTIONS, type BulkBody, type BulkResult, type BulkVerb } from "@baton/actions";
import { call } from "./api.js";
import { filtersToQuery, type InstanceFilters } from "./instance-filters.js";

export const BULK_LABEL: Record<BulkVerb, string> = {
  pause: "Pause",
  resume: "Resume",
  cancel: "Cancel",
  retry: "Retry",
  upgrade: "Upgrade",
  reset: "Reset",
};

/** The most roots one call takes (the API's bound, docs/api.md "Bulk verbs"). */
export const CALL_LIMIT = 1000;
/** A dry run stops after this many calls: it lists at most PREVIEW_MAX_CALLS × CALL_LIMIT roots. */
export const PREVIEW_MAX_CALLS = 10;
export const PREVIEW_MAX_ROOTS = PREVIEW_MAX_CALLS * CALL_LIMIT;

/** What the panel is set to: the verb and its own options. */
export interface BulkChoice {
  verb: BulkVerb;
  /** Retry and reset: override the only_once protection. */
  force: boolean;
  /** Reset only: the task to go back to, and whether the roots land paused. */
  toTask: string;
  paused: boolean;
  /** Upgrade only: the version the trees run now and the one to move them to. */
  from: number | null;
  to: number | null;
}

/** The list filters as the counts query of the roots a choice acts on (upgrade: only those at `from`). */
export function bulkCountQuery(filters: InstanceFilters, choice: BulkChoice) {
  const query = filtersToQuery(filters);
  return choice.verb === "upgrade" && choice.from !== null ? { ...query, version: choice.from } : query;
}

/** The bulk body of the list's filters and the choice (bulk verbs act on roots: `children` never goes in). */
export function bulkBody(filters: InstanceFilters, choice: BulkChoice): BulkBody {
  const { children: _children, ...query } = filtersToQuery(filters);
  return {
    ...query,
    ...((choice.verb === "retry" || choice.verb === "reset") && choice.force ? { force: true } : {}),
    ...(choice.verb === "reset" ? { to_task: choice.toTask, ...(choice.paused ? { paused: true } : {}) } : {}),
    ...(choice.verb === "upgrade" ? { from_version: choice.from ?? 0, to_version: choice.to ?? 0 } : {}),
  } as BulkBody;
}

/** Runs `verb` call after call with the cursor, at most `maxCalls` calls, adding up the answers. */
export async function runBulk(verb: BulkVerb, body: BulkBody, maxCalls: number): Promise<BulkResult> {
  const total: BulkResult = { dry_run: body.dry_run === true, counts: {}, ids: {}, refused: [], next_cursor: null };
  let cursor: string | undefined;
  for (let calls = 0; calls < maxCalls; calls++) {
    const answer: BulkResult = await call(BULK_ACTIONS[verb], {
      body: { ...body, limit: CALL_LIMIT, ...(cursor ? { cursor } : {}) } as never,
    });
    for (const [outcome, n] of Object.entries(answer.counts)) total.counts[outcome] = (total.counts[outcome] ?? 0) + n;
    for (const [outcome, ids] of Object.entries(answer.ids))
      total.ids[outcome] = [...(total.ids[outcome] ?? []), ...ids];
    total.refused.push(...answer.refused);
    total.next_cursor = answer.next_cursor;
    if (!answer.next_cursor) break;
    cursor = answer.next_cursor;
  }
  return total;
}
