import type { SwitchCase } from "../definition.js";
import { describeKind } from "../json-kind.js";
import { joinPath } from "../problems.js";
import { checkOneOutcome, decodeAuthoredError, decodeGoto, type TaskIndex } from "./decode-routing.js";
import { expectObject, rejectUnknownFields, report, type Scope } from "./scope.js";

/** `"next"` → `[]`, `"end"` → `[{goto: "end"}]`, `"$id"` → `[{goto: "$id"}]`; arrays are decoded case by case. */
export function decodeSwitch(sc: Scope, raw: unknown, path: string, tasks: TaskIndex): SwitchCase[] {
  if (raw === undefined) return [];
  if (typeof raw === "string") {
    if (raw === "next" && !tasks.isLast) return [];
    const goto = decodeGoto(sc, raw, path, tasks, true);
    return goto === undefined ? [] : [{ goto }];
  }
  if (!Array.isArray(raw)) {
    report(sc, path, `expected "next", "end", "$<task-id>" or an array of cases, got ${describeKind(raw)}`);
    return [];
  }
  const out: SwitchCase[] = [];
  raw.forEach((item, i) => {
    const at = joinPath(path, i);
    const obj = expectObject(sc, item, at, "a case {case?, goto | raise | panic}");
    if (obj === undefined) return;
    rejectUnknownFields(sc, obj, ["case", "goto", "raise", "panic"], at);
    checkOneOutcome(sc, obj, at, false);
    const c: SwitchCase = {};
    if (obj.case === undefined) {
      if (i !== raw.length - 1)
        report(sc, at, "the default case (without case) must be the last; the cases after it could never match");
    } else if (typeof obj.case !== "string" || obj.case.trim() === "")
      report(
        sc,
        joinPath(at, "case"),
        `expected a boolean expression, got ${typeof obj.case === "string" ? "an empty string" : describeKind(obj.case)}`,
      );
    else {
      if (obj.case.trimStart().startsWith("$:"))
        report(sc, joinPath(at, "case"), `case is a bare expression: drop the "$:" (got "${obj.case}")`);
      c.case = obj.case;
    }
    if (obj.goto !== undefined) c.goto = decodeGoto(sc, obj.goto, joinPath(at, "goto"), tasks, true);
    if (obj.raise !== undefined) c.raise = decodeAuthoredError(sc, obj.raise, joinPath(at, "raise"));
    if (obj.panic !== undefined) c.panic = decodeAuthoredError(sc, obj.panic, joinPath(at, "panic"));
    out.push(c);
  });
  return out;
}
