import { describe, expect, it } from "vitest";
import type { JsonSchema } from "./action-spec.js";
import { registry } from "./registry.js";

/** Every integer or number a request can carry (path, query, body), with where it sits. */
function numbersIn(schema: JsonSchema | undefined, path: string, out: [string, JsonSchema][]): void {
  if (!schema || typeof schema !== "object") return;
  const type = schema.type;
  const types = Array.isArray(type) ? type : [type];
  if (types.includes("integer") || types.includes("number")) out.push([path, schema]);
  const props = schema.properties as Record<string, JsonSchema> | undefined;
  if (props) for (const [k, v] of Object.entries(props)) numbersIn(v, `${path}.${k}`, out);
  if (schema.items && typeof schema.items === "object") numbersIn(schema.items as JsonSchema, `${path}[]`, out);
  for (const key of ["oneOf", "anyOf", "allOf"] as const) {
    const list = schema[key] as JsonSchema[] | undefined;
    if (Array.isArray(list)) for (const [i, s] of list.entries()) numbersIn(s, `${path}<${key}${i}>`, out);
  }
}

// Page sizes have no maximum on purpose: a larger `limit` is clamped to the cap, never refused
// (docs/api.md "Lists"), so any number is an answerable request.
const CLAMPED = new Set(["query.limit"]);

describe("request numbers", () => {
  it("every numeric path, query and body field has a documented minimum and maximum within float64's exact integers", () => {
    const unbounded: string[] = [];
    for (const action of registry) {
      const found: [string, JsonSchema][] = [];
      numbersIn(action.params, "path", found);
      numbersIn(action.query, "query", found);
      numbersIn(action.body, "body", found);
      for (const [where, s] of found) {
        const max = s.maximum as number | undefined;
        const min = s.minimum as number | undefined;
        if (CLAMPED.has(where)) continue;
        if (typeof max !== "number" || typeof min !== "number" || max > Number.MAX_SAFE_INTEGER)
          unbounded.push(`${action.name} ${where}`);
      }
    }
    expect(unbounded).toEqual([]);
  });
});
