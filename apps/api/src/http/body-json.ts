import { type Json, jsonDepthPast, parseJsonFast } from "@baton/expr";
import { ApiError } from "./api-error.js";

/**
 * A request body's JSON, parsed exactly. Nesting past `maxDepth` (--limit-body-depth) is refused
 * by one pass over the text before any parser runs, so a deep body costs the event loop that
 * pass and nothing more (docs/limits.md "Requests").
 */
export function parseBodyJson(text: string, maxDepth: number): Json {
  const tooDeep = jsonDepthPast(text, maxDepth);
  if (tooDeep !== undefined)
    throw new ApiError(
      "invalid",
      `the request body nests arrays and objects more than ${maxDepth} levels deep (--limit-body-depth, docs/limits.md): level ${maxDepth + 1} opens at character ${tooDeep}`,
    );
  try {
    return parseJsonFast(text);
  } catch (error) {
    throw new ApiError("invalid", `the request body is not valid JSON: ${(error as Error).message}`);
  }
}
