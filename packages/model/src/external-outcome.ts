// What a worker may answer to an external task (docs/language.md "external"): a `result` (validated and
// conformed against result_schema) or an error outcome `{code, message?, data?}` whose code is
// a key of the task's `raises` and whose data matches that key's schema (null: no data).
import type { Json } from "@baton/expr";
import type { Definition, Task } from "./definition.js";
import { describeKind, isPlainObject } from "./json-kind.js";
import { conformValue } from "./schema-conform.js";
import { type ValueProblem, validateValue } from "./schema-validate.js";

export interface ExternalError {
  code: string;
  message?: string;
  data?: Json;
}

export type OutcomeCheck<T> = { ok: true; value: T } | { ok: false; problems: ValueProblem[] };

function externalTask(task: Task): string | undefined {
  return task.action?.type === "external" ? undefined : `task "${task.id}" is not an external task`;
}

/** The conformed result, or problems under `result.…`; an absent result is null. */
export function checkExternalResult(def: Definition, task: Task, result: Json | undefined): OutcomeCheck<Json> {
  const notExternal = externalTask(task);
  if (notExternal !== undefined) return { ok: false, problems: [{ path: "result", message: notExternal }] };
  const value = result === undefined ? null : result;
  const schema = task.action?.type === "external" ? task.action.result_schema : undefined;
  if (schema === undefined) return { ok: true, value };
  const conformed = conformValue(schema, value, def.$defs);
  const problems = validateValue(schema, conformed, def.$defs, "result");
  return problems.length === 0 ? { ok: true, value: conformed } : { ok: false, problems };
}

/** The error outcome with its data conformed, or problems under `error.…`. */
export function checkExternalError(def: Definition, task: Task, error: unknown): OutcomeCheck<ExternalError> {
  const notExternal = externalTask(task);
  if (notExternal !== undefined) return { ok: false, problems: [{ path: "error", message: notExternal }] };
  if (!isPlainObject(error))
    return {
      ok: false,
      problems: [{ path: "error", message: `expected {code, message?, data?}, got ${describeKind(error)}` }],
    };
  const problems: ValueProblem[] = [];
  for (const key of Object.keys(error))
    if (!["code", "message", "data"].includes(key))
      problems.push({ path: "error", message: `unknown field "${key}" (expected code, message, data)` });
  const raises = task.raises ?? {};
  const declared = Object.keys(raises);
  const known = declared.length > 0 ? `one of ${declared.join(", ")}` : `none: task "${task.id}" declares no raises`;
  if (typeof error.code !== "string")
    problems.push({
      path: "error.code",
      message: `expected an error code (${known}), got ${describeKind(error.code)}`,
    });
  else if (!Object.hasOwn(raises, error.code))
    problems.push({
      path: "error.code",
      message: `"${error.code}" is not raised by task "${task.id}"; expected ${known}`,
    });
  if (error.message !== undefined && typeof error.message !== "string")
    problems.push({ path: "error.message", message: `expected a string, got ${describeKind(error.message)}` });
  if (problems.length > 0) return { ok: false, problems };
  const code = error.code as string;
  const schema = raises[code];
  const out: ExternalError = { code };
  if (error.message !== undefined) out.message = error.message as string;
  const data = error.data === undefined ? null : (error.data as Json);
  if (schema === null) {
    if (data !== null)
      return {
        ok: false,
        problems: [{ path: "error.data", message: `code "${code}" carries no data (its raises schema is null)` }],
      };
    return { ok: true, value: out };
  }
  const conformed = conformValue(schema, data, def.$defs);
  const dataProblems = validateValue(schema, conformed, def.$defs, "error.data");
  if (dataProblems.length > 0) return { ok: false, problems: dataProblems };
  if (error.data !== undefined || conformed !== null) out.data = conformed;
  return { ok: true, value: out };
}
