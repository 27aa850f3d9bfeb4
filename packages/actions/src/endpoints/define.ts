import type { ActionSpec } from "../action-spec.js";
import type { ActionName } from "../types.js";

/** A registry entry whose name is one of the typed action names (kept literal for the exhaustiveness check). */
export type NamedAction<N extends ActionName = ActionName> = ActionSpec & { name: N };

export function action<N extends ActionName>(spec: NamedAction<N>): NamedAction<N> {
  return spec;
}
