import { isLosslessNumber, type Json, parseJson } from "@baton/expr";
import { parseAllDocuments, type ScalarTag, stringify } from "yaml";

// YAML numbers resolve through parseJson so that integers beyond 2^53 and long decimal fractions
// stay LosslessNumbers, exactly as they would in a JSON file.
const JSON_NUMBER = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?$/;

function losslessNumber(text: string): number | Json {
  return JSON_NUMBER.test(text) ? parseJson(text) : Number(text);
}

const LOSSLESS_NUMBER_TAGS: ScalarTag[] = [
  { tag: "tag:yaml.org,2002:int", default: true, test: /^[-+]?[0-9]+$/, resolve: losslessNumber },
  {
    tag: "tag:yaml.org,2002:float",
    default: true,
    test: /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$/,
    resolve: losslessNumber,
  },
] as ScalarTag[];

/**
 * The most JSON one YAML document may expand to once its aliases are resolved (docs/cli.md
 * "Definition files"): four times the API's default --max-definition-body. Without it one
 * 1 MB anchor and 99 aliases made 100 MB of JSON, 12 s and 483 MB in the CLI, before the server
 * refused the upload.
 */
export const MAX_EXPANDED_BYTES = 16 * 1024 * 1024;

export interface YamlDocument {
  /** 1-based position of the document in the stream. */
  index: number;
  /** 1-based line where the document's content starts. */
  line: number;
  value: Json;
}

export interface SourceProblem {
  line?: number;
  column?: number;
  message: string;
}

/** Every non-empty document of a YAML stream (anchors, aliases and `<<` merge keys resolved). */
export function parseYamlDocuments(text: string): { documents: YamlDocument[]; problems: SourceProblem[] } {
  const lineStarts = lineStartOffsets(text);
  const documents: YamlDocument[] = [];
  const problems: SourceProblem[] = [];
  const parsed = parseAllDocuments(text, {
    merge: true,
    prettyErrors: false,
    customTags: (tags) => [...LOSSLESS_NUMBER_TAGS, ...tags],
  });
  // parseAllDocuments returns an EmptyStream (no documents, but still iterable) for empty input.
  const list = Array.isArray(parsed) ? parsed : [];
  list.forEach((document, i) => {
    for (const error of document.errors) {
      const at = positionOf(lineStarts, error.pos[0]);
      problems.push({ ...at, message: firstLine(error.message) });
    }
    if (document.errors.length > 0 || document.contents === null) return;
    const start = document.contents.range?.[0] ?? 0;
    const line = positionOf(lineStarts, start).line;
    let value: Json;
    try {
      value = document.toJS({ maxAliasCount: 1000 }) as Json;
    } catch (error) {
      // e.g. an alias to an anchor of another document (anchors do not cross "---").
      problems.push({ line, message: `document ${i + 1}: ${firstLine((error as Error).message)}` });
      return;
    }
    // An empty document (a trailing "---", only comments) holds nothing, not a null definition.
    if (value === null) return;
    if (expandedSize(value, MAX_EXPANDED_BYTES) > MAX_EXPANDED_BYTES) {
      problems.push({
        line,
        message: `document ${i + 1} expands to more than ${MAX_EXPANDED_BYTES / 1024 / 1024} MiB of JSON once its aliases are resolved (the most the CLI sends); repeat less through anchors and aliases`,
      });
      return;
    }
    const invalid = findNonJson(value, "");
    if (invalid) {
      problems.push({
        line,
        message: `document ${i + 1}${invalid.path ? ` at ${invalid.path}` : ""}: ${invalid.message}`,
      });
      return;
    }
    documents.push({ index: i + 1, line, value });
  });
  return { documents, problems };
}

export function parseJsonText(text: string): { value?: Json; problems: SourceProblem[] } {
  try {
    return { value: parseJson(text), problems: [] };
  } catch (error) {
    const message = (error as Error).message;
    const position = /position (\d+)/.exec(message);
    const at = position ? positionOf(lineStartOffsets(text), Number(position[1])) : {};
    return { problems: [{ ...at, message }] };
  }
}

/**
 * About the length of `value` as JSON (escapes not counted), each alias counted where it is
 * used; the walk stops once past `limit`, so its own cost is bounded by it.
 */
export function expandedSize(value: unknown, limit: number): number {
  let size = 0;
  const walk = (v: unknown): void => {
    if (size > limit) return;
    if (typeof v === "string") size += v.length + 2;
    else if (Array.isArray(v)) {
      size += 2;
      for (const item of v) {
        walk(item);
        size += 1;
        if (size > limit) return;
      }
    } else if (v !== null && typeof v === "object" && !isLosslessNumber(v)) {
      size += 2;
      for (const [key, child] of Object.entries(v)) {
        size += key.length + 4;
        walk(child);
        if (size > limit) return;
      }
    } else size += String(v).length;
  };
  walk(value);
  return size;
}

function findNonJson(value: unknown, path: string): { path: string; message: string } | undefined {
  if (typeof value === "number" && !Number.isFinite(value)) {
    return { path, message: `${value} is not a JSON number` };
  }
  if (
    typeof value === "bigint" ||
    typeof value === "undefined" ||
    typeof value === "function" ||
    typeof value === "symbol"
  ) {
    return { path, message: `a ${typeof value} is not a JSON value` };
  }
  if (value instanceof Date || value instanceof Map || value instanceof Set || value instanceof Uint8Array) {
    return { path, message: `a ${value.constructor.name} is not a JSON value (quote it to make it a string)` };
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findNonJson(value[i], `${path}[${i}]`);
      if (found) return found;
    }
  } else if (value !== null && typeof value === "object" && value.constructor === Object) {
    for (const [key, child] of Object.entries(value)) {
      const found = findNonJson(child, path ? `${path}.${key}` : key);
      if (found) return found;
    }
  }
  return undefined;
}

function firstLine(text: string): string {
  return text.split("\n")[0].trim();
}

function lineStartOffsets(text: string): number[] {
  const starts = [0];
  for (let i = 0; i < text.length; i++) if (text[i] === "\n") starts.push(i + 1);
  return starts;
}

function positionOf(lineStarts: number[], offset: number): { line: number; column: number } {
  let low = 0;
  let high = lineStarts.length - 1;
  while (low < high) {
    const mid = (low + high + 1) >> 1;
    if (lineStarts[mid] <= offset) low = mid;
    else high = mid - 1;
  }
  return { line: low + 1, column: offset - lineStarts[low] + 1 };
}

const LOSSLESS_NUMBER_OUTPUT: ScalarTag = {
  identify: (value) => isLosslessNumber(value),
  tag: "tag:yaml.org,2002:int",
  default: true,
  test: /^\b$/,
  resolve: (text: string) => text,
  stringify: (item) => String((item as { value: unknown }).value),
} as ScalarTag;

/** YAML text of a JSON value, LosslessNumbers written as their exact digits. */
export function toYaml(value: unknown): string {
  return stringify(value, { customTags: [LOSSLESS_NUMBER_OUTPUT], lineWidth: 0 });
}
