// The per-process description (docs/api.md "OpenAPI", per-process documents): the full document narrowed
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
  /** The type of the instance `output` (the checker's inference, docs/language.md "Schemas"): types the events. */
  output_schema?: JsonSchema;
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

// Keywords whose values are data (copied verbatim), and the language's own annotation, which
// OpenAPI tools would read as an unknown keyword: it is carried as an `x-` extension.
const DATA_KEYWORDS = new Set(["default", "enum", "const", "example", "examples"]);
export const SECRET_EXTENSION = "x-baton-secret";

/**
 * A copy of `schema` as an OpenAPI schema: every `#/$defs/x` reference pointed at its hoisted
 * component, `secret` carried as `x-baton-secret`. Property names are never rewritten.
 */
function rehomeRefs(schema: unknown, process: string): unknown {
  if (Array.isArray(schema)) return schema.map((item) => rehomeRefs(item, process));
  if (schema === null || typeof schema !== "object") return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === "$ref" && typeof value === "string" && value.startsWith("#/$defs/")) {
      out[key] = `#/components/schemas/${componentName(process, value.slice("#/$defs/".length))}`;
    } else if (key === "$defs") {
      // dropped: the caller hoists the definition's $defs into components
    } else if (key === "secret") {
      out[SECRET_EXTENSION] = value;
    } else if (DATA_KEYWORDS.has(key)) {
      out[key] = value;
    } else if (key === "properties" && value !== null && typeof value === "object") {
      out[key] = Object.fromEntries(Object.entries(value).map(([name, s]) => [name, rehomeRefs(s, process)]));
    } else {
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
  out.webhooks = processWebhooks(definition);
  return out;
}

/**
 * OpenAPI 3.1 `webhooks`: what a subscription to this process receives (docs/events.md "Event
 * types"), one entry per event type, the completed instance's `output` typed by the process's
 * output schema. The payload shapes are the outbox triggers' (migration 0018): change both together.
 */
function processWebhooks(definition: ProcessForOpenApi): Record<string, unknown> {
  const name = definition.name;
  const str = { type: "string" };
  const instanceData = (status: string, extra: Record<string, JsonSchema>): JsonSchema => ({
    type: "object",
    properties: {
      instance_id: str,
      root_id: str,
      parent_id: { type: ["string", "null"] },
      process: { type: "string", const: name },
      version: { type: "integer" },
      status: { type: "string", const: status },
      business_key: { type: ["string", "null"] },
      task: str,
      ...extra,
    },
    required: ["instance_id", "root_id", "process", "version", "status", "task"],
  });
  const error: JsonSchema = {
    type: "object",
    properties: { code: str, message: { type: ["string", "null"] } },
    required: ["code"],
  };
  const output =
    definition.output_schema === undefined ? {} : (rehomeRefs(definition.output_schema, name) as JsonSchema);
  const data: Record<string, JsonSchema> = {
    "instance.completed": instanceData("completed", { output }),
    "instance.failed": instanceData("failed", { error }),
    "instance.raised": instanceData("raised", { error }),
    "instance.cancelled": instanceData("cancelled", {}),
    "instance.paused": instanceData("paused", {}),
    "external_task.waiting": {
      type: "object",
      properties: {
        instance_id: str,
        process: { type: "string", const: name },
        version: { type: "integer" },
        business_key: { type: ["string", "null"] },
        task: str,
        input: {},
        deadline: { type: ["integer", "null"] },
      },
      required: ["instance_id", "process", "version", "task"],
    },
  };
  const webhooks: Record<string, unknown> = {};
  for (const [type, schema] of Object.entries(data))
    webhooks[type] = {
      post: {
        operationId: `${type.replace(/[._]/g, "-")}`,
        summary: `${type} of process ${name}`,
        description:
          "POSTed to a subscription's URL (docs/events.md), signed by Standard Webhooks (`webhook-id`, `webhook-timestamp`, `webhook-signature`).",
        parameters: ["webhook-id", "webhook-timestamp", "webhook-signature"].map((header) => ({
          name: header,
          in: "header",
          required: true,
          schema: { type: "string" },
        })),
        requestBody: {
          required: true,
          content: {
            "application/json": {
              schema: {
                type: "object",
                properties: {
                  type: { type: "string", const: type },
                  timestamp: { type: "string", format: "date-time" },
                  data: schema,
                },
                required: ["type", "timestamp", "data"],
              },
            },
          },
        },
        responses: { "200": { description: "Any 2xx: delivered. Anything else is retried with backoff." } },
      },
    };
  return webhooks;
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
    if (inputRequired || definition.input_schema)
      example.input = exampleFor(definition.input_schema, { ...definition.$defs, ...ownDefs(definition.input_schema) });
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

function ownDefs(schema: JsonSchema | undefined): Record<string, JsonSchema> {
  const defs = schema?.$defs;
  return defs !== null && typeof defs === "object" ? (defs as Record<string, JsonSchema>) : {};
}

const MAX_EXAMPLE_DEPTH = 16;
/** Optional properties are shown near the top only, so a recursive optional `$ref` cannot nest deeply. */
const OPTIONAL_DEPTH = 3;

/**
 * A value valid against an input schema, for "Try it out": defaults, `const`, enums' first value,
 * references followed, every required property present (optional ones near the top), and the
 * bounds (minimum, lengths, item counts) met.
 */
function exampleFor(schema: unknown, defs: Record<string, JsonSchema>, depth = 0): unknown {
  if (schema === null || typeof schema !== "object" || depth > MAX_EXAMPLE_DEPTH) return {};
  let s = schema as Record<string, any>;
  if (typeof s.$ref === "string" && s.$ref.startsWith("#/$defs/")) {
    const target = defs[s.$ref.slice("#/$defs/".length)];
    if (target === undefined) return {};
    s = { ...target, ...s, $ref: undefined };
  }
  if ("default" in s) return s.default;
  if ("const" in s) return s.const;
  if (Array.isArray(s.enum) && s.enum.length > 0) return s.enum[0];
  for (const combinator of ["oneOf", "anyOf"])
    if (Array.isArray(s[combinator]) && s[combinator].length > 0) {
      const { [combinator]: branches, ...base } = s;
      return exampleFor({ ...base, ...branches[0] }, defs, depth + 1);
    }
  const type = Array.isArray(s.type) ? s.type[0] : s.type;
  switch (type) {
    case "object": {
      const out: Record<string, unknown> = {};
      const required = new Set(Array.isArray(s.required) ? (s.required as string[]) : []);
      for (const [key, property] of Object.entries((s.properties ?? {}) as Record<string, any>))
        if (required.has(key) || depth < OPTIONAL_DEPTH) out[key] = exampleFor(property, defs, depth + 1);
      return out;
    }
    case "array": {
      const n = typeof s.minItems === "number" ? s.minItems : 0;
      return Array.from({ length: n }, () => exampleFor(s.items ?? {}, defs, depth + 1));
    }
    case "string": {
      const min = typeof s.minLength === "number" ? s.minLength : 0;
      const max = typeof s.maxLength === "number" ? s.maxLength : Number.POSITIVE_INFINITY;
      return "string".padEnd(min, "x").slice(0, Math.max(min, Math.min(max, 6)));
    }
    case "integer":
    case "number": {
      const min = typeof s.minimum === "number" ? s.minimum : undefined;
      const max = typeof s.maximum === "number" ? s.maximum : undefined;
      const n = min !== undefined ? min : max !== undefined && max < 0 ? max : 0;
      return type === "integer" ? (min !== undefined ? Math.ceil(n) : Math.floor(n)) : n;
    }
    case "boolean":
      return false;
    case "null":
      return null;
    default:
      return {};
  }
}
