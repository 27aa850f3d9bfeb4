import { readFile } from "node:fs/promises";
import path from "node:path";
import { type Json, parseJson } from "@baton/expr";
import { UsageError } from "./cli-error.js";

type JsonObject = { [key: string]: Json };

/**
 * The instance input from `--input JSON`, `--input @file.json` and `--set key=value` (applied
 * on top, in order). A --set value is JSON when it parses as JSON, else a string; dotted keys
 * build nested objects (`--set customer.id=7`).
 */
export async function buildInput(
  input: string | undefined,
  sets: string[],
  cwd: string,
): Promise<JsonObject | undefined> {
  let value: JsonObject | undefined;
  if (input !== undefined) value = await readInputFlag(input, cwd);
  for (const assignment of sets) {
    value ??= {};
    applySet(value, assignment);
  }
  return value;
}

/** A flag value that is JSON, or `@path` to a file holding JSON (numbers kept exact). */
export async function readJsonArgument(value: string, flag: string, cwd: string): Promise<Json> {
  let text = value;
  let where = flag;
  if (value.startsWith("@")) {
    const file = value.slice(1);
    where = `${flag} ${value}`;
    try {
      text = await readFile(path.resolve(cwd, file), "utf8");
    } catch (error) {
      throw new UsageError(
        `${where}: cannot read ${file}: ${(error as NodeJS.ErrnoException).code === "ENOENT" ? "no such file" : (error as Error).message}`,
      );
    }
  }
  try {
    return parseJson(text);
  } catch (error) {
    throw new UsageError(`${where}: invalid JSON: ${(error as Error).message}`);
  }
}

async function readInputFlag(input: string, cwd: string): Promise<JsonObject> {
  const parsed = await readJsonArgument(input, "--input", cwd);
  if (!isObject(parsed))
    throw new UsageError(
      `--input${input.startsWith("@") ? ` ${input}` : ""}: the input must be a JSON object, like {"order_id": 7}`,
    );
  return parsed;
}

function applySet(target: JsonObject, assignment: string): void {
  const eq = assignment.indexOf("=");
  if (eq <= 0) throw new UsageError(`--set ${assignment}: expected key=value, like --set order_id=7`);
  const keys = assignment.slice(0, eq).split(".");
  if (keys.some((key) => key === ""))
    throw new UsageError(`--set ${assignment}: empty key segment in "${assignment.slice(0, eq)}"`);
  const raw = assignment.slice(eq + 1);
  let value: Json;
  try {
    value = parseJson(raw);
  } catch {
    value = raw;
  }
  let node = target;
  for (const key of keys.slice(0, -1)) {
    const next = node[key];
    if (next === undefined) node = node[key] = {};
    else if (isObject(next)) node = next;
    else throw new UsageError(`--set ${assignment}: "${key}" already holds a non-object value`);
  }
  node[keys[keys.length - 1]] = value;
}

function isObject(value: Json | undefined): value is JsonObject {
  return (
    value !== null &&
    typeof value === "object" &&
    !Array.isArray(value) &&
    Object.getPrototypeOf(value) === Object.prototype
  );
}
