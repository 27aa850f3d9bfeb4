// Facts the instance page reads from the definition and the children's counts.

import { parseDuration } from "@baton/model/duration";
import { isSettled } from "./use-load.js";

/** Whether a retry on `task` may meet the only_once protection (docs/ui.md "Small rules"). */
export function mayNeedForce(definition: unknown, task: string): boolean {
  const tasks = (definition as { tasks?: { id?: string; only_once?: boolean; action?: { type?: string } }[] }).tasks;
  const found = tasks?.find((t) => t.id === task);
  if (!found) return true;
  return found.only_once === true || ["child", "child_list", "child_map"].includes(found.action?.type ?? "");
}

/** The wait of each `delay` task with a fixed `for` (an `until` or an expression has none to show). */
export function delaysOf(definition: unknown): Record<string, number> {
  const tasks = (definition as { tasks?: { id?: string; action?: { type?: string; for?: unknown } }[] }).tasks ?? [];
  const out: Record<string, number> = {};
  for (const task of tasks) {
    const wait = task.action?.type === "delay" ? task.action.for : undefined;
    if (task.id && (typeof wait === "string" || typeof wait === "number"))
      try {
        out[task.id] = parseDuration(wait);
      } catch {
        // an expression (`$: …`): the engine's wake-up is the only figure
      }
  }
  return out;
}

/** The direct children still to settle (a `failing` parent fails once they have). */
export function unsettledCount(groups: readonly { status?: string | null; count: number }[]): number {
  return groups.filter((g) => !isSettled(g.status ?? "")).reduce((sum, g) => sum + g.count, 0);
}
