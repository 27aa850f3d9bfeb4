// The per-process description (SPEC "Published API description"): the full document narrowed
// to starting and reading instances, with the process's own input_schema in the start body.

import type { JsonSchema } from "./action-spec.js";
import type { OpenApiDocument } from "./openapi.js";

/** The operations a per-process document keeps. */
export const PROCESS_OPERATIONS: readonly string[] = [
  "startInstance",
  "listInstances",
  "getInstance",
  "getInstanceDetail",
  "listInstanceLogs",
];

export interface ProcessForOpenApi {
  name: string;
  input_schema?: JsonSchema;
  /** The definition's shared schemas, which `input_schema` may reference as `#/$defs/<name>`. */
  $defs?: Record<string, JsonSchema>;
}

const NO_INPUT: JsonSchema = {
  type: "object",
  maxProperties: 0,
  description: "This process declares no `input_schema`: omit `input` or send `{}`.",
};

function componentName(process: string, def: string): string {
  return `${process}.${def}`.replace(/[^A-Za-z0-9._-]/g, "_");
}

/** A copy of `schema` with every `#/$defs/x` reference pointed at its hoisted component. */
function rehomeRefs(schema: unknown, process: string): unknown {
  if (Array.isArray(schema)) return schema.map((item) => rehomeRefs(item, process));
  if (schema === null || typeof schema !== "object") return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === "$ref" && typeof value === "string" && value.startsWith("#/$defs/")) {
      out[key] = `#/components/schemas/${componentName(process, value.slice("#/$defs/".length))}`;
    } else if (key !== "$defs") {
      // a nested $defs is dropped: the caller hoists the definition's $defs into components
      out[key] = rehomeRefs(value, process);
    }
  }
  return out;
}

function operationsOf(pathItem: Record<string, unknown>): [string, Record<string, unknown>][] {
  return Object.entries(pathItem).filter(
    ([key, value]) => ["get", "put", "post", "delete", "patch"].includes(key) && typeof value === "object",
  ) as [string, Record<string, unknown>][];
}

/**
 * `doc` (from buildOpenApi) narrowed to PROCESS_OPERATIONS, with `process` fixed to the
 * definition's name and `input` replaced by its input_schema. `doc` is not modified.
 */
export function buildProcessOpenApi(doc: OpenApiDocument, definition: ProcessForOpenApi): OpenApiDocument {
  const out = structuredClone(doc) as Record<string, any>;
  const name = definition.name;
  const paths: Record<string, Record<string, unknown>> = {};
  let startFound = false;
  for (const [path, item] of Object.entries((out.paths ?? {}) as Record<string, Record<string, unknown>>)) {
    const kept: Record<string, unknown> = {};
    for (const [method, op] of operationsOf(item)) {
      if (!PROCESS_OPERATIONS.includes(op.operationId as string)) continue;
      kept[method] = op;
      if (op.operationId === "startInstance") {
        patchStartBody(op, definition);
        startFound = true;
      }
      if (op.operationId === "listInstances") fixProcessQuery(op, name);
    }
    if (Object.keys(kept).length === 0) continue;
    if (item.servers) kept.servers = item.servers;
    paths[path] = kept;
  }
  if (!startFound) throw new Error("buildProcessOpenApi: the document has no startInstance operation");
  out.paths = paths;
  out.info = {
    ...out.info,
    title: `Baton API: process ${name}`,
    description: `Start and follow instances of the process \`${name}\`. The start body's \`input\` is this process's \`input_schema\`.\n\n${out.info?.description ?? ""}`,
  };
  out.tags = ((out.tags ?? []) as { name: string }[]).filter((tag) => tag.name === "instances");
  const schemas = (out.components.schemas ??= {});
  for (const [def, schema] of Object.entries(definition.$defs ?? {}))
    schemas[componentName(name, def)] = rehomeRefs(schema, name);
  return out;
}

function patchStartBody(op: Record<string, any>, definition: ProcessForOpenApi): void {
  const media = op.requestBody?.content?.["application/json"];
  const body = media?.schema;
  if (!body?.properties) throw new Error("buildProcessOpenApi: the startInstance body has no properties to patch");
  body.properties.process = { type: "string", const: definition.name, description: "This process." };
  body.properties.input = definition.input_schema
    ? (rehomeRefs(definition.input_schema, definition.name) as JsonSchema)
    : NO_INPUT;
  const inputRequired = Array.isArray(definition.input_schema?.required) && definition.input_schema.required.length > 0;
  body.required = inputRequired ? ["process", "input"] : ["process"];
  if (media.example) {
    const example = { process: definition.name } as Record<string, unknown>;
    if (inputRequired || definition.input_schema) example.input = exampleFor(definition.input_schema);
    media.example = example;
  }
}

function fixProcessQuery(op: Record<string, any>, name: string): void {
  for (const parameter of op.parameters ?? []) {
    if (parameter.in === "query" && parameter.name === "process") {
      parameter.schema = { type: "string", const: name };
      parameter.example = name;
    }
  }
}

/** A plausible value for an input schema: defaults, enums' first value, or a placeholder per type. */
function exampleFor(schema: unknown): unknown {
  if (schema === null || typeof schema !== "object") return {};
  const s = schema as Record<string, any>;
  if ("default" in s) return s.default;
  if (Array.isArray(s.enum) && s.enum.length > 0) return s.enum[0];
  for (const combinator of ["oneOf", "anyOf"])
    if (Array.isArray(s[combinator]) && s[combinator].length > 0) return exampleFor(s[combinator][0]);
  const type = Array.isArray(s.type) ? s.type[0] : s.type;
  switch (type) {
    case "object": {
      const out: Record<string, unknown> = {};
      for (const [key, property] of Object.entries((s.properties ?? {}) as Record<string, unknown>))
        out[key] = exampleFor(property);
      return out;
    }
    case "array":
      return [];
    case "string":
      return "string";
    case "integer":
      return 0;
    case "number":
      return 0;
    case "boolean":
      return false;
    case "null":
      return null;
    default:
      return {};
  }
}
