import { createHash } from "node:crypto";
import { isLosslessNumber, type LosslessNumber } from "@baton/expr";
import type { Definition } from "./definition.js";

/**
 * JSON with object keys sorted recursively (code-unit order) and no whitespace; undefined
 * members are dropped. This is what is stored and hashed, so it must never depend on the
 * order in which a definition was written. LosslessNumbers keep their exact digits.
 */
export function canonicalJson(def: Definition): string {
  return stableStringify(def);
}

export function definitionHash(def: Definition): string {
  return createHash("sha256").update(canonicalJson(def)).digest("hex");
}

export function stableStringify(value: unknown): string {
  if (value === null) return "null";
  if (isLosslessNumber(value)) return (value as LosslessNumber).value;
  switch (typeof value) {
    case "string":
      return JSON.stringify(value);
    case "boolean":
      return value ? "true" : "false";
    case "number":
      if (!Number.isFinite(value)) throw new TypeError(`${value} is not representable as JSON`);
      return JSON.stringify(value);
    case "object": {
      if (Array.isArray(value))
        return `[${value.map((v) => (v === undefined ? "null" : stableStringify(v))).join(",")}]`;
      const obj = value as Record<string, unknown>;
      const keys = Object.keys(obj)
        .filter((k) => obj[k] !== undefined)
        .sort();
      return `{${keys.map((k) => `${JSON.stringify(k)}:${stableStringify(obj[k])}`).join(",")}}`;
    }
    default:
      throw new TypeError(`a ${typeof value} is not representable as JSON`);
  }
}
