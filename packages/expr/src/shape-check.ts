import { type CheckProblem, checkTemplate, type TypeEnv } from "./check.js";
import { arrayType, objectType, typeOfLiteral } from "./check-types.js";
import type { JsonSchema } from "./schema-types.js";
import type { CompiledShape } from "./shape.js";

export type ShapeProblem = CheckProblem & { path: string };

/** The inferred JSON Schema of the evaluated shape, and every template problem with its path. */
export function checkShape(shape: CompiledShape, env: TypeEnv): { type: JsonSchema; problems: ShapeProblem[] } {
  const problems: ShapeProblem[] = [];
  const type = walk(shape, env, problems);
  return { type, problems };
}

function walk(shape: CompiledShape, env: TypeEnv, problems: ShapeProblem[]): JsonSchema {
  switch (shape.kind) {
    case "value":
      return typeOfLiteral(shape.value);
    case "template": {
      const result = checkTemplate(shape.template, env);
      for (const p of result.problems) problems.push({ ...p, path: shape.path });
      return result.type;
    }
    case "array":
      return arrayType(shape.items.map((item) => walk(item, env, problems)));
    case "object": {
      const properties: { [key: string]: JsonSchema } = {};
      for (const [key, value] of shape.entries) properties[key] = walk(value, env, problems);
      return objectType(properties);
    }
  }
}
