// `state._children` maps a task id to the child instance(s) it spawned: one id (child), a list
// (child_list, in element order) or a map (child_map, by key). A large list or map (more than
// about 50 ids) is stored apart by the API and shows in the state as the placeholder
// `{"$ref": "<64 hex>"}` unless `detail?resolve=true` spliced it back; the whole `_children`
// can be one too. `GET /objects/<ref>` gives the stored value.

export interface ChildRef {
  task: string;
  /** The list index or map key; null for a single child. */
  key: string | null;
  id: string;
}

const REF = /^[0-9a-f]{64}$/;

/** The object ref of a stored-object placeholder `{"$ref": "<64 hex>"}` and nothing else; null otherwise. */
export function storedRef(value: unknown): string | null {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return null;
  const keys = Object.keys(value);
  const ref = (value as { $ref?: unknown }).$ref;
  return keys.length === 1 && typeof ref === "string" && REF.test(ref) ? ref : null;
}

/** The refs of the stored objects a `_children` map still points to: the whole map, or one task's list or map. */
export function storedChildRefs(children: unknown): string[] {
  const whole = storedRef(children);
  if (whole) return [whole];
  if (children === null || typeof children !== "object" || Array.isArray(children)) return [];
  return Object.values(children)
    .map(storedRef)
    .filter((ref): ref is string => ref !== null);
}

/** `children` with each placeholder replaced by its loaded value (one whose object is not in `loaded` stays a placeholder). */
export function spliceChildren(children: unknown, loaded: ReadonlyMap<string, unknown>): unknown {
  const whole = storedRef(children);
  if (whole) return loaded.has(whole) ? spliceChildren(loaded.get(whole), loaded) : children;
  if (children === null || typeof children !== "object" || Array.isArray(children)) return children;
  return Object.fromEntries(
    Object.entries(children).map(([task, value]) => {
      const ref = storedRef(value);
      return [task, ref && loaded.has(ref) ? loaded.get(ref) : value];
    }),
  );
}

export function childRefs(children: unknown): ChildRef[] {
  if (children === null || typeof children !== "object" || Array.isArray(children) || storedRef(children)) return [];
  const refs: ChildRef[] = [];
  for (const [task, value] of Object.entries(children)) {
    if (typeof value === "string") refs.push({ task, key: null, id: value });
    else if (Array.isArray(value)) {
      for (const [i, id] of value.entries()) if (typeof id === "string") refs.push({ task, key: String(i), id });
    }
    // A placeholder is not a child_map whose key is "$ref": it is read with storedChildRefs.
    else if (value !== null && typeof value === "object" && !storedRef(value)) {
      for (const [key, id] of Object.entries(value)) if (typeof id === "string") refs.push({ task, key, id });
    }
  }
  return refs;
}

/** The fields of a child the sort and filter of a children level read (its status view when loaded). */
export interface ChildFacts {
  ref: ChildRef;
  view?: { process: string; status: string; task: string; error_code?: string | null } | null;
}

export type ChildOrder = "spawn" | "status" | "error";

/** Trouble first: failed and raised children, then those on their way there, then live, then settled well. */
const STATUS_RANK = [
  "failed",
  "raised",
  "failing",
  "cancelling",
  "paused",
  "pausing",
  "running",
  "cancelled",
  "completed",
];

function statusRank(child: ChildFacts): number {
  const rank = child.view ? STATUS_RANK.indexOf(child.view.status) : -1;
  return rank === -1 ? STATUS_RANK.length : rank; // not read (yet): last
}

/**
 * The children in the order asked: as spawned (the state's order), by status with failed ones
 * first, or by error code (children with one first, codes alphabetically). Ties keep the spawn
 * order.
 */
export function orderChildren<T extends ChildFacts>(children: readonly T[], order: ChildOrder): T[] {
  const indexed = children.map((child, i) => ({ child, i }));
  const code = (child: ChildFacts) => child.view?.error_code ?? "";
  const compare = {
    spawn: () => 0,
    status: (a: ChildFacts, b: ChildFacts) => statusRank(a) - statusRank(b),
    error: (a: ChildFacts, b: ChildFacts) => (code(a) ? 0 : 1) - (code(b) ? 0 : 1) || code(a).localeCompare(code(b)),
  }[order];
  return indexed.sort((a, b) => compare(a.child, b.child) || a.i - b.i).map(({ child }) => child);
}

/**
 * Whether a child matches the filter text: a case-insensitive part of its task, key, id,
 * process, status, current task or error code. Empty text matches every child.
 */
export function childMatches(child: ChildFacts, text: string): boolean {
  const needle = text.trim().toLowerCase();
  if (!needle) return true;
  const { ref, view } = child;
  const place = childPlace(ref);
  return [place, ref.id, view?.process, view?.status, view?.task, view?.error_code].some((field) =>
    field?.toLowerCase().includes(needle),
  );
}

/** A child's place in its parent: `each_sku[31]` (list index), `pair[left]` (map key), `inner` (single child). */
export function childPlace(ref: ChildRef): string {
  return ref.key === null ? ref.task : `${ref.task}[${ref.key}]`;
}

/** Each child id's place, from a parent's `_children` (stored lists not spliced back are left out). */
export function childPlaces(children: unknown): Map<string, string> {
  return new Map(childRefs(children).map((ref) => [ref.id, childPlace(ref)]));
}
