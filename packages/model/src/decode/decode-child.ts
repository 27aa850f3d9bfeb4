import type { ChildAction, ChildListAction, ChildMapAction, ChildSpec } from "../definition.js";
import { describeKind } from "../json-kind.js";
import { MAP_KEY, PROCESS_NAME } from "../names.js";
import { joinPath } from "../problems.js";
import { isExpressionLeaf } from "../template-text.js";
import { decodeSchema, expectObject, expectString, rejectUnknownFields, report, type Scope } from "./scope.js";

/** What a decoder may know about other processes (docs/language.md "child, child_map, child_list"). */
export interface ChildNames {
  /** The process being decoded: a child may name itself. */
  self?: string;
  /** Names registered in the same batch: they exist once the batch is applied. */
  batch: readonly string[];
  exists?: (name: string) => boolean;
}

function decodeName(sc: Scope, raw: unknown, path: string, names: ChildNames): string | undefined {
  if (raw === undefined) {
    report(sc, path, "a child needs name (the process to start)");
    return undefined;
  }
  const at = joinPath(path, "name");
  const name = expectString(sc, raw, at, "a process name");
  if (name === undefined) return undefined;
  if (!PROCESS_NAME.test(name))
    report(sc, at, `"${name}" is not a valid process name (expected ${PROCESS_NAME.source})`);
  else if (name !== names.self && !names.batch.includes(name) && names.exists !== undefined && !names.exists(name))
    report(sc, at, `child process "${name}" does not exist (register it first or in the same batch)`);
  return name;
}

function decodeVersion(sc: Scope, raw: unknown, path: string): number | undefined {
  if (raw === undefined) return undefined;
  if (typeof raw !== "number" || !Number.isSafeInteger(raw) || raw < 0) {
    report(
      sc,
      joinPath(path, "version"),
      `expected a version number (a positive integer; 0 or absent = pinned or latest), got ${typeof raw === "number" ? raw : describeKind(raw)}`,
    );
    return undefined;
  }
  // 0 means the same as absent; dropping it keeps equivalent definitions hashing alike.
  return raw === 0 ? undefined : raw;
}

function decodeSpec(sc: Scope, raw: Record<string, unknown>, path: string, names: ChildNames): ChildSpec {
  const spec: ChildSpec = { name: decodeName(sc, raw.name, path, names) ?? "" };
  const version = decodeVersion(sc, raw.version, path);
  if (version !== undefined) spec.version = version;
  if (raw.input !== undefined) spec.input = raw.input as ChildSpec["input"];
  if (raw.result_schema !== undefined)
    spec.result_schema = decodeSchema(sc, raw.result_schema, joinPath(path, "result_schema"));
  return spec;
}

export function decodeChild(sc: Scope, raw: Record<string, unknown>, path: string, names: ChildNames): ChildAction {
  rejectUnknownFields(sc, raw, ["type", "name", "version", "input", "result_schema"], path);
  return { type: "child", ...decodeSpec(sc, raw, path, names) };
}

export function decodeChildMap(
  sc: Scope,
  raw: Record<string, unknown>,
  path: string,
  names: ChildNames,
): ChildMapAction {
  rejectUnknownFields(sc, raw, ["type", "children"], path);
  const out: ChildMapAction = { type: "child_map", children: {} };
  if (raw.children === undefined) {
    report(sc, path, "child_map needs children (an object of key → {name, version?, input?, result_schema?})");
    return out;
  }
  const at = joinPath(path, "children");
  const children = expectObject(sc, raw.children, at, "an object of key → {name, version?, input?, result_schema?}");
  if (children === undefined) return out;
  if (Object.keys(children).length === 0) report(sc, at, "child_map needs at least one child");
  for (const [key, value] of Object.entries(children)) {
    const kp = joinPath(at, key);
    if (!MAP_KEY.test(key)) report(sc, kp, `child key "${key}" must match ${MAP_KEY.source}`);
    const obj = expectObject(sc, value, kp, "a child {name, version?, input?, result_schema?}");
    if (obj === undefined) continue;
    rejectUnknownFields(sc, obj, ["name", "version", "input", "result_schema"], kp);
    out.children[key] = decodeSpec(sc, obj, kp, names);
  }
  return out;
}

export function decodeChildList(
  sc: Scope,
  raw: Record<string, unknown>,
  path: string,
  names: ChildNames,
): ChildListAction {
  rejectUnknownFields(sc, raw, ["type", "name", "over", "version", "result_schema"], path);
  const out: ChildListAction = { type: "child_list", name: decodeName(sc, raw.name, path, names) ?? "", over: "" };
  if (raw.over === undefined)
    report(sc, path, 'child_list needs over ("$: <array expression>"; each element is one child\'s input)');
  else {
    const over = expectString(sc, raw.over, joinPath(path, "over"), 'a "$: <array expression>"');
    if (over !== undefined) {
      if (!isExpressionLeaf(over))
        report(sc, joinPath(path, "over"), `over must be a "$: <array expression>", got "${over}"`);
      out.over = over;
    }
  }
  const version = decodeVersion(sc, raw.version, path);
  if (version !== undefined) out.version = version;
  if (raw.result_schema !== undefined)
    out.result_schema = decodeSchema(sc, raw.result_schema, joinPath(path, "result_schema"));
  return out;
}
