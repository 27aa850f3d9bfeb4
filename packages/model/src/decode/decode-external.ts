import type { ExternalAction } from "../definition.js";
import { joinPath } from "../problems.js";
import { decodeTimeout } from "./decode-timing.js";
import { decodeSchema, rejectUnknownFields, type Scope } from "./scope.js";

export function decodeExternal(sc: Scope, raw: Record<string, unknown>, path: string): ExternalAction {
  rejectUnknownFields(sc, raw, ["type", "input", "result_schema", "timeout"], path);
  const out: ExternalAction = { type: "external" };
  if (raw.input !== undefined) out.input = raw.input as ExternalAction["input"];
  if (raw.result_schema !== undefined)
    out.result_schema = decodeSchema(sc, raw.result_schema, joinPath(path, "result_schema"));
  if (raw.timeout !== undefined) out.timeout = decodeTimeout(sc, raw.timeout, joinPath(path, "timeout"), true);
  return out;
}
