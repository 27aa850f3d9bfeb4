import { unreachableCodeReason } from "../catchable-codes.js";
import type { Schema, Task } from "../definition.js";
import { describeKind } from "../json-kind.js";
import { authoredCodeProblem, RESERVED_TASK_IDS, TASK_ID } from "../names.js";
import { onlyOnceProblems } from "../only-once.js";
import { joinPath } from "../problems.js";
import { decodeAction } from "./decode-action.js";
import { decodeConcurrency, decodeRateLimit } from "./decode-flow.js";
import type { ChildNames } from "./decode-child.js";
import { decodeOnError } from "./decode-on-error.js";
import type { TaskIndex } from "./decode-routing.js";
import { decodeSwitch } from "./decode-switch.js";
import { decodeTimeout } from "./decode-timing.js";
import { decodeSchemaOrNull, expectBoolean, expectObject, rejectUnknownFields, report, type Scope } from "./scope.js";

const TASK_FIELDS = [
  "id",
  "action",
  "output",
  "switch",
  "on_error",
  "raises",
  "only_once",
  "timeout",
  "concurrency",
  "rate_limit",
];

export function taskIdProblem(id: string): string | undefined {
  if (RESERVED_TASK_IDS.includes(id)) return `task id "${id}" is reserved (it is a goto keyword)`;
  if (!TASK_ID.test(id))
    return `task id "${id}" must start with a letter or _ and contain only letters, digits, _ and - (at most 64 characters)`;
  return undefined;
}

/** Decodes tasks[index]; returns a best-effort task even when problems were reported, so later checks still run. */
export function decodeTask(base: Scope, raw: unknown, tasks: TaskIndex, names: ChildNames): Task | undefined {
  const path = `tasks[${tasks.index}]`;
  const obj = expectObject(base, raw, path, "a task object {id, action?, output?, switch?, on_error?, …}");
  if (obj === undefined) return undefined;
  const id = typeof obj.id === "string" ? obj.id : undefined;
  const sc: Scope = { ...base, task: id };
  if (obj.id === undefined) report(sc, path, "a task needs an id");
  else if (id === undefined) report(sc, joinPath(path, "id"), `expected a task id string, got ${describeKind(obj.id)}`);
  else {
    const problem = taskIdProblem(id);
    if (problem !== undefined) report(sc, joinPath(path, "id"), problem);
  }
  rejectUnknownFields(sc, obj, TASK_FIELDS, path);

  const task: Task = { id: id ?? "", switch: [], on_error: [] };
  if (obj.action !== undefined) task.action = decodeAction(sc, obj.action, joinPath(path, "action"), names);
  if (obj.timeout !== undefined) moveTimeoutIntoAction(sc, task, obj, path);
  if (obj.output !== undefined) task.output = obj.output as Task["output"];
  task.switch = decodeSwitch(sc, obj.switch, joinPath(path, "switch"), tasks);
  task.on_error = decodeOnError(sc, obj.on_error, joinPath(path, "on_error"), tasks);
  if (obj.on_error !== undefined && obj.action === undefined && task.on_error.length > 0)
    report(
      sc,
      joinPath(path, "on_error"),
      "on_error never applies to a task without an action (only actions fail with catchable codes)",
    );
  if (obj.raises !== undefined) task.raises = decodeRaises(sc, obj.raises, joinPath(path, "raises"));
  if (obj.only_once !== undefined) {
    const v = expectBoolean(sc, obj.only_once, joinPath(path, "only_once"));
    // false is the default; dropping it keeps equivalent definitions hashing alike.
    if (v === true) task.only_once = true;
    if (v === true && obj.action === undefined)
      report(sc, joinPath(path, "only_once"), "only_once needs an action to protect");
  }
  for (const field of ["concurrency", "rate_limit"] as const) {
    if (obj[field] === undefined) continue;
    const at = joinPath(path, field);
    if (obj.action === undefined) report(sc, at, `${field} needs an action to hold back (a routing task runs inline)`);
    else if (field === "concurrency") {
      const c = decodeConcurrency(sc, obj[field], at);
      if (c !== undefined) task.concurrency = c;
    } else {
      const r = decodeRateLimit(sc, obj[field], at);
      if (r !== undefined) task.rate_limit = r;
    }
  }
  for (const p of onlyOnceProblems(task)) report(sc, `${path}.${p.at}`, p.message);
  task.on_error.forEach((rule, i) => {
    rule.code?.forEach((code, k) => {
      const reason = unreachableCodeReason(task, code);
      if (reason !== undefined)
        report(sc, `${path}.on_error[${i}].code[${k}]`, `"${code}" can never be caught here: ${reason}`);
    });
  });
  return task;
}

/** The canonical place of a timeout is inside the action (docs/language.md "Timeouts, durations and times"). */
function moveTimeoutIntoAction(sc: Scope, task: Task, obj: Record<string, unknown>, path: string): void {
  const at = joinPath(path, "timeout");
  const action = task.action;
  if (obj.action === undefined) {
    report(sc, at, "timeout needs a fetch or external action");
    return;
  }
  if (action === undefined) return;
  if (action.type !== "fetch" && action.type !== "external") {
    report(
      sc,
      at,
      `timeout applies only to fetch and external actions, not ${action.type}${action.type === "delay" ? " (a delay takes for or until)" : ""}`,
    );
    return;
  }
  if (action.timeout !== undefined) {
    report(sc, at, "timeout is given both on the task and inside the action; keep one (canonically inside the action)");
    return;
  }
  const timeout = decodeTimeout(sc, obj.timeout, at, action.type === "external");
  if (timeout !== undefined) action.timeout = timeout;
}

function decodeRaises(sc: Scope, raw: unknown, path: string): Task["raises"] {
  const obj = expectObject(sc, raw, path, "an object of error code → schema or null");
  if (obj === undefined) return undefined;
  const out: { [code: string]: Schema | null } = {};
  for (const [code, schema] of Object.entries(obj)) {
    const at = joinPath(path, code);
    const problem = authoredCodeProblem(code);
    if (problem !== undefined) report(sc, at, problem);
    const s = decodeSchemaOrNull(sc, schema, at);
    if (s !== undefined) out[code] = s;
  }
  return out;
}
