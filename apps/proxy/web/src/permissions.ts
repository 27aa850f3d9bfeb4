// Which controls a person sees. The API has the last word (403); hiding a control only spares
// people a button that cannot work. `null` permissions mean "no login": show everything.

export type Permissions = readonly string[] | null;

export type Permission = "read" | "operate" | "deploy" | "worker" | "admin";

/** Whether the permissions admit an action that needs `needed` (`admin` admits everything). */
export function can(permissions: Permissions, needed: Permission): boolean {
  if (permissions === null) return true;
  return permissions.includes("admin") || permissions.includes(needed);
}

export type LifecycleVerb = "pause" | "resume" | "cancel" | "retry" | "upgrade" | "reset";

// docs/engine.md "Operator verbs", and what the engine's UPDATEs select on: pause takes running
// trees, resume paused or still-pausing ones, cancel anything live that is not already
// cancelling, retry only failed roots. Upgrade acts on any live tree; reset on a settled one that
// did not end cancelled, or a paused one (docs/safe-change.md "Reset").
const VERB_STATUSES: Record<LifecycleVerb, readonly string[]> = {
  pause: ["running"],
  resume: ["paused", "pausing"],
  cancel: ["running", "pausing", "paused", "failing"],
  retry: ["failed"],
  upgrade: ["running", "pausing", "paused", "failing"],
  reset: ["failed", "raised", "completed", "paused"],
};

/** Whether `verb` changes a root in `status` (else the verb leaves it unchanged or refuses it). */
export function verbApplies(verb: LifecycleVerb, status: string): boolean {
  return VERB_STATUSES[verb].includes(status);
}

const VERB_PERMISSION: Record<LifecycleVerb, Permission> = {
  pause: "operate",
  resume: "operate",
  cancel: "operate",
  retry: "operate",
  upgrade: "deploy",
  reset: "operate",
};

export interface LifecycleTarget {
  status: string;
  /** Lifecycle verbs act on a whole tree through its root and refuse a child id. */
  isRoot: boolean;
}

/** The lifecycle buttons to show for an instance, in display order. */
export function lifecycleVerbs(target: LifecycleTarget, permissions: Permissions): LifecycleVerb[] {
  if (!target.isRoot) return [];
  return (Object.keys(VERB_STATUSES) as LifecycleVerb[]).filter(
    (verb) => VERB_STATUSES[verb].includes(target.status) && can(permissions, VERB_PERMISSION[verb]),
  );
}

export const SETTLED_STATUSES: readonly string[] = ["completed", "failed", "raised", "cancelled"];
