// `state._children` maps a task id to the child instance(s) it spawned: one id (child), a list
// (child_list, in element order) or a map (child_map, by key).

export interface ChildRef {
  task: string;
  /** The list index or map key; null for a single child. */
  key: string | null;
  id: string;
}

export function childRefs(children: unknown): ChildRef[] {
  if (children === null || typeof children !== "object" || Array.isArray(children)) return [];
  const refs: ChildRef[] = [];
  for (const [task, value] of Object.entries(children)) {
    if (typeof value === "string") refs.push({ task, key: null, id: value });
    else if (Array.isArray(value)) {
      for (const [i, id] of value.entries()) if (typeof id === "string") refs.push({ task, key: String(i), id });
    }
    else if (value !== null && typeof value === "object") {
      for (const [key, id] of Object.entries(value)) if (typeof id === "string") refs.push({ task, key, id });
    }
  }
  return refs;
}
