import type { JsonSchema } from "@baton/expr";
import type { Definition, Schema } from "./definition.js";
import { typeDefinition } from "./typing.js";

/** What `POST /definitions/validate` returns per process (docs/language.md "Schemas", typing). */
export interface ValidateResult {
  process: string;
  version: number;
  process_input: Schema;
  process_output: Schema;
  tasks: Record<string, { action_type: string; input?: Schema; output?: Schema; result?: Schema }>;
  $defs?: Record<string, Schema>;
}

/** Accepts exactly the empty object: what a process without input_schema may be started with. */
export const NO_INPUT: Schema = { type: "object", properties: {}, additionalProperties: false };
/** A process without `output` finishes without one. */
export const NO_OUTPUT: Schema = { type: "null" };

/**
 * The inferred schemas of a decoded definition. Task `input` is the payload the action sends
 * (fetch body, external/child input, child_map inputs by key, one child_list element), `result`
 * what it yields as `self.result`, `output` what it exports; `action_type` is "none" for a
 * routing-only task. `{}` means unknown (nothing declared or inferable).
 */
export function inferSchemas(def: Definition, version: number): ValidateResult {
  const typing = typeDefinition(def);
  const tasks: ValidateResult["tasks"] = {};
  def.tasks.forEach((task, i) => {
    const t = typing.tasks[i];
    const entry: ValidateResult["tasks"][string] = { action_type: task.action?.type ?? "none" };
    if (t.payload !== undefined) entry.input = t.payload as Schema;
    if (t.output !== undefined) entry.output = t.output as Schema;
    if (t.result !== undefined) entry.result = t.result as Schema;
    tasks[task.id] = entry;
  });
  const result: ValidateResult = {
    process: def.name,
    version,
    process_input: def.input_schema ?? NO_INPUT,
    process_output: (typing.processOutput as JsonSchema | undefined) ?? NO_OUTPUT,
    tasks,
  };
  if (def.$defs !== undefined) result.$defs = def.$defs;
  return result;
}
