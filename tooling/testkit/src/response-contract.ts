// The response contract (docs/api.md "OpenAPI"): every response a test receives from the API
// must be one the OpenAPI document declares for that operation — the status listed, the body
// valid against its schema, and strictly: an object that lists properties may carry no other.
// The document leaves response objects open (later servers may add fields); tests close them
// so that a field the server sends but the document omits fails the suite that saw it.
import { buildOpenApi, registry, SCHEMA_FORMATS } from "@baton/actions";
import { Ajv, type ValidateFunction } from "ajv";

type Doc = Record<string, any>;

interface Operation {
  method: string;
  pattern: RegExp;
  name: string;
  responses: Record<string, Doc>;
}

/** Origins of the Baton API servers tests started (startServer): only their responses are held to the contract. */
const apiOrigins = new Set<string>();

/** Holds every response from `url`'s origin to the contract (startServer calls it for each server it starts). */
export function holdToContract(url: string): void {
  apiOrigins.add(new URL(url).origin);
}

export function isHeldToContract(url: URL): boolean {
  return apiOrigins.has(url.origin);
}

let compiled: { operations: Operation[]; errorBody: ValidateFunction; ajv: Ajv; doc: Doc } | undefined;
const validators = new Map<string, ValidateFunction>();

function setup() {
  if (compiled !== undefined) return compiled;
  const doc = buildOpenApi(registry) as Doc;
  const ajv = new Ajv({ strict: false, allowUnionTypes: true, allErrors: true, formats: SCHEMA_FORMATS });
  const roots = new Set(registry.filter((spec) => spec.root).map((spec) => spec.path));
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths as Record<string, Doc>)) {
    const template = path.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\{[^}]+\}/g, "[^/]+");
    const prefix = roots.has(path) ? "(?:/api)?" : "/api";
    for (const [method, op] of Object.entries(item))
      operations.push({
        method: method.toUpperCase(),
        pattern: new RegExp(`^${prefix}${template}$`),
        name: op.operationId,
        responses: op.responses,
      });
  }
  const errorBody = ajv.compile(closed(deref(doc.components.schemas.ErrorBody, doc)) as object);
  compiled = { operations, errorBody, ajv, doc };
  return compiled;
}

/** `schema` with every `#/components/schemas/X` reference replaced by the component. */
function deref(schema: unknown, doc: Doc, depth = 0): unknown {
  if (Array.isArray(schema)) return schema.map((s) => deref(s, doc, depth));
  if (schema === null || typeof schema !== "object" || depth > 32) return schema;
  const s = schema as Doc;
  if (typeof s.$ref === "string" && s.$ref.startsWith("#/components/schemas/")) {
    const { $ref, ...rest } = s;
    return {
      ...(deref(doc.components.schemas[$ref.slice("#/components/schemas/".length)], doc, depth + 1) as Doc),
      ...rest,
    };
  }
  const out: Doc = {};
  for (const [key, value] of Object.entries(s))
    out[key] = ["example", "examples", "default", "enum", "const"].includes(key) ? value : deref(value, doc, depth);
  return out;
}

/** A copy where every object schema that lists properties and says nothing else refuses others. */
function closed(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(closed);
  if (schema === null || typeof schema !== "object") return schema;
  const out: Doc = {};
  for (const [key, value] of Object.entries(schema as Doc))
    out[key] =
      key === "properties"
        ? Object.fromEntries(Object.entries(value as Doc).map(([k, v]) => [k, closed(v)]))
        : ["example", "examples", "default", "enum", "const"].includes(key)
          ? value
          : closed(value);
  if (out.properties !== undefined && out.additionalProperties === undefined) out.additionalProperties = false;
  return out;
}

function describeErrors(validate: ValidateFunction): string {
  return (validate.errors ?? [])
    .slice(0, 5)
    .map((e) => `${e.instancePath || "(body)"} ${e.message}${e.params ? ` ${JSON.stringify(e.params)}` : ""}`)
    .join("; ");
}

/**
 * Throws when the response is not one the document declares for `method` `pathname`. Paths
 * under /api/ that no operation matches are checked only as error bodies; others not at all.
 */
export function checkResponse(method: string, pathname: string, status: number, contentType: string, text: string) {
  const { operations, errorBody, ajv, doc } = setup();
  const upper = method.toUpperCase();
  if (upper === "HEAD" || upper === "OPTIONS") return;
  const json = contentType.includes("json") && text.length > 0;
  const op = operations.find((o) => o.method === upper && o.pattern.test(pathname));
  const where = `${upper} ${pathname} → ${status}`;
  if (op === undefined) {
    // Only the API's own namespace: tests also talk to upstream mocks, identity providers, the proxy.
    if (pathname.startsWith("/api/") && status >= 400 && json && !errorBody(JSON.parse(text)))
      throw new Error(`response contract: ${where}: not an ErrorBody: ${describeErrors(errorBody)}\n${text}`);
    return;
  }
  const response = op.responses[String(status)];
  if (response === undefined)
    throw new Error(
      `response contract: ${where}: status ${status} is not documented for ${op.name} (documented: ${Object.keys(op.responses).join(", ")})\n${text.slice(0, 500)}`,
    );
  const media = response.content as Record<string, Doc> | undefined;
  if (media === undefined) {
    if (text.length > 0) throw new Error(`response contract: ${where}: ${op.name} documents no body, got ${text}`);
    return;
  }
  const jsonMedia = media["application/json"];
  if (jsonMedia === undefined) return; // a documented non-JSON body (the docs page)
  if (!json) throw new Error(`response contract: ${where}: ${op.name} documents JSON, got "${contentType}"`);
  const key = `${op.name} ${status}`;
  let validate = validators.get(key);
  if (validate === undefined) {
    validate = ajv.compile(closed(deref(jsonMedia.schema, doc)) as object);
    validators.set(key, validate);
  }
  if (!validate(JSON.parse(text)))
    throw new Error(
      `response contract: ${where}: the body does not match what ${op.name} documents for ${status}: ${describeErrors(validate)}\n${text.slice(0, 2000)}`,
    );
}
