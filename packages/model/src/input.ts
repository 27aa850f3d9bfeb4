import type { Json } from "@baton/expr";
import type { Definition } from "./definition.js";
import { isPlainObject } from "./json-kind.js";
import { conformValue } from "./schema-conform.js";
import { type ValueProblem, validateValue } from "./schema-validate.js";

/** Validates and conforms an instance input at start (docs/language.md "The document", `input_schema`): the conformed value, `{}` when absent. */
export function validateInput(
  def: Definition,
  input: Json | undefined,
): { ok: true; value: Json } | { ok: false; problems: ValueProblem[] } {
  if (def.input_schema === undefined) {
    const empty = input === undefined || input === null || (isPlainObject(input) && Object.keys(input).length === 0);
    if (empty) return { ok: true, value: {} };
    return {
      ok: false,
      problems: [
        {
          path: "input",
          message: `process "${def.name}" declares no input (it has no input_schema), so the input must be empty`,
        },
      ],
    };
  }
  const raw = input === undefined || input === null ? {} : input;
  const value = conformValue(def.input_schema, raw, def.$defs);
  const problems = validateValue(def.input_schema, value, def.$defs, "input");
  return problems.length === 0 ? { ok: true, value } : { ok: false, problems };
}
