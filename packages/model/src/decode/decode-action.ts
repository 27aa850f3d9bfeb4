import type { Action } from "../definition.js";
import { describeKind } from "../json-kind.js";
import { joinPath } from "../problems.js";
import { type ChildNames, decodeChild, decodeChildList, decodeChildMap } from "./decode-child.js";
import { decodeDelay } from "./decode-delay.js";
import { decodeExternal } from "./decode-external.js";
import { decodeFetch } from "./decode-fetch.js";
import { expectObject, report, type Scope } from "./scope.js";

export const ACTION_TYPES: readonly string[] = ["fetch", "external", "child", "child_map", "child_list", "delay"];

export function decodeAction(sc: Scope, raw: unknown, path: string, names: ChildNames): Action | undefined {
  const obj = expectObject(sc, raw, path, `an action object with a type (${ACTION_TYPES.join(", ")})`);
  if (obj === undefined) return undefined;
  switch (obj.type) {
    case "fetch":
      return decodeFetch(sc, obj, path);
    case "external":
      return decodeExternal(sc, obj, path);
    case "child":
      return decodeChild(sc, obj, path, names);
    case "child_map":
      return decodeChildMap(sc, obj, path, names);
    case "child_list":
      return decodeChildList(sc, obj, path, names);
    case "delay":
      return decodeDelay(sc, obj, path);
    case undefined:
      report(sc, path, `an action needs a type (${ACTION_TYPES.join(", ")})`);
      return undefined;
    default:
      report(
        sc,
        joinPath(path, "type"),
        typeof obj.type === "string"
          ? `unknown action type "${obj.type}"; expected one of ${ACTION_TYPES.join(", ")}`
          : `expected an action type (${ACTION_TYPES.join(", ")}), got ${describeKind(obj.type)}`,
      );
      return undefined;
  }
}
