import type { Definition } from "@baton/model";

export interface ChildReference {
  task: string;
  child: string;
  /** undefined or 0: resolved through pins or the latest version at spawn time. */
  version?: number;
}

/** Every process a definition may spawn as a child, per task. */
export function childReferences(def: Definition): ChildReference[] {
  const refs: ChildReference[] = [];
  for (const task of def.tasks) {
    const action = task.action;
    if (!action) continue;
    if (action.type === "child" || action.type === "child_list")
      refs.push({ task: task.id, child: action.name, version: action.version });
    if (action.type === "child_map") {
      for (const spec of Object.values(action.children))
        refs.push({ task: task.id, child: spec.name, version: spec.version });
    }
  }
  return refs;
}
