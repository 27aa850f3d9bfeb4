import type { Json } from "@baton/expr";

/** `instances.state` (the instance contract): engine-private keys start with `_`. */
export interface InstanceState {
  input: Json;
  outputs: { [taskId: string]: Json };
  _children: { [taskId: string]: Json };
  /** The `error` root of a task entered through an on_error goto; gone at its next normal transition. */
  _error?: { [key: string]: Json };
  [key: string]: Json | undefined;
}

export function asInstanceState(value: Json): InstanceState {
  const object =
    value !== null && typeof value === "object" && !Array.isArray(value) ? (value as { [key: string]: Json }) : {};
  const outputs = object.outputs;
  const children = object._children;
  return {
    ...object,
    input: object.input ?? null,
    outputs:
      outputs !== null && typeof outputs === "object" && !Array.isArray(outputs)
        ? { ...(outputs as { [key: string]: Json }) }
        : {},
    _children:
      children !== null && typeof children === "object" && !Array.isArray(children)
        ? (children as { [key: string]: Json })
        : {},
  } as InstanceState;
}
