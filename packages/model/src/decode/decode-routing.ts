// Gotos and authored errors, shared by switch cases and on_error rules.
import type { AuthoredError, Goto } from "../definition.js";
import { describeKind } from "../json-kind.js";
import { authoredCodeProblem } from "../names.js";
import { joinPath } from "../problems.js";
import { expectObject, expectString, rejectUnknownFields, report, type Scope } from "./scope.js";

/** The task list as routing sees it. */
export interface TaskIndex {
  ids: ReadonlySet<string>;
  /** Index of the task being decoded, and whether it is the last (where `next` has nowhere to go). */
  index: number;
  isLast: boolean;
}

export function decodeGoto(
  sc: Scope,
  raw: unknown,
  path: string,
  tasks: TaskIndex,
  allowNext: boolean,
): Goto | undefined {
  const expected = allowNext ? '"next", "end" or "$<task-id>"' : '"end" or "$<task-id>"';
  if (typeof raw !== "string") {
    report(sc, path, `expected ${expected}, got ${describeKind(raw)}`);
    return undefined;
  }
  if (raw === "end") return "end";
  if (raw === "next") {
    if (!allowNext) report(sc, path, 'goto "next" is not allowed in on_error; use "end" or "$<task-id>"');
    else if (tasks.isLast) report(sc, path, 'goto "next" on the last task has no next task; use "end"');
    return allowNext && !tasks.isLast ? "next" : undefined;
  }
  if (raw.startsWith("$")) {
    const id = raw.slice(1);
    if (!tasks.ids.has(id)) {
      report(sc, path, `goto "${raw}" names no task (known: ${[...tasks.ids].join(", ")})`);
      return undefined;
    }
    return raw as Goto;
  }
  const hint = tasks.ids.has(raw) ? `; did you mean "$${raw}"?` : "";
  report(sc, path, `expected ${expected}, got "${raw}"${hint}`);
  return undefined;
}

export function decodeAuthoredError(sc: Scope, raw: unknown, path: string): AuthoredError | undefined {
  const obj = expectObject(sc, raw, path, "{code, message}");
  if (obj === undefined) return undefined;
  rejectUnknownFields(sc, obj, ["code", "message"], path);
  let code: string | undefined;
  if (obj.code === undefined) report(sc, path, "needs code (a lower_snake_case error code)");
  else {
    code = expectString(sc, obj.code, joinPath(path, "code"), "an error code");
    if (code !== undefined) {
      const problem = authoredCodeProblem(code);
      if (problem !== undefined) report(sc, joinPath(path, "code"), problem);
    }
  }
  let message: string | undefined;
  if (obj.message === undefined) report(sc, path, "needs message (the error_message the instance will carry)");
  else {
    message = expectString(sc, obj.message, joinPath(path, "message"), "a message");
    // The message is carried verbatim (docs/language.md "switch"): text that looks like an
    // expression would reach error_message as those very characters.
    if (message !== undefined && (message.trimStart().startsWith("$:") || message.includes("${")))
      report(
        sc,
        joinPath(path, "message"),
        `"${message.length > 60 ? `${message.slice(0, 60)}…` : message}" looks like an expression, but a raise or panic message is fixed text, never evaluated; write the text itself (put values for operators in the task's output or logs)`,
      );
  }
  return code === undefined || message === undefined ? undefined : { code, message };
}

/** Reports unless exactly one (or, with `atMostOne`, at most one) of goto/raise/panic is present. */
export function checkOneOutcome(sc: Scope, obj: Record<string, unknown>, path: string, atMostOne: boolean): void {
  const present = ["goto", "raise", "panic"].filter((k) => obj[k] !== undefined);
  if (present.length > 1) report(sc, path, `give only one of goto, raise, panic (got ${present.join(" and ")})`);
  else if (present.length === 0 && !atMostOne) report(sc, path, "a case needs one of goto, raise or panic");
}
