// A hook's stored spec (docs/events.md "Hooks"): the PUT body checked — the verifier's
// settings, the target, and the shapes over `body`, `headers` and `query` type-checked as a
// schedule's input is (schedules/spec.ts) — and the shapes evaluated for one request.
import type { HookBody } from "@baton/actions";
import {
  checkShape,
  compileShape,
  type CompiledShape,
  evalBudget,
  evaluateShape,
  type Json,
  type JsonSchema,
  NOW_KEY,
  ShapeError,
} from "@baton/expr";
import { checkSchema } from "@baton/model";
import type { Db } from "../../storage/db.js";
import { evalLimitsOf, type ServerLimits } from "../../limits.js";
import { type FieldProblem, invalid } from "../../refusal.js";
import { secretBytes } from "../events/signing.js";
import { resolveTarget } from "../schedules/fire-start.js";
import { typeFitsInput } from "../schedules/spec.js";

/** The default and largest distance between a signed timestamp and now. */
export const DEFAULT_TOLERANCE_MS = 300_000;

/** What a request's shapes read: the body as JSON, the headers (lower-case names) and the query. */
const STRINGS: JsonSchema = { type: "object", additionalProperties: { type: "string" } };
const requestRoots = (body: JsonSchema): Record<string, JsonSchema> => ({ body, headers: STRINGS, query: STRINGS });
const ROOT_NOTES = {
  input: "a hook's shapes read `body`, `headers` and `query`",
  state: "a hook's shapes read `body`, `headers` and `query`",
};

export interface StoredHookSpec {
  header: string | null;
  id_header: string | null;
  tolerance_ms: number;
  body_schema: JsonSchema | null;
  start: NonNullable<HookBody["start"]> | null;
  signal: NonNullable<HookBody["signal"]> | null;
}

function compiled(value: Json, path: string, problems: FieldProblem[]): CompiledShape | undefined {
  try {
    return compileShape(value, path);
  } catch (error) {
    if (!(error instanceof ShapeError)) throw error;
    problems.push({ path: error.path || path, message: error.syntaxError.message });
    return undefined;
  }
}

function checked(
  shape: CompiledShape,
  body: JsonSchema,
  path: string,
  problems: FieldProblem[],
): JsonSchema | undefined {
  const result = checkShape(shape, { roots: requestRoots(body), rootNotes: ROOT_NOTES });
  for (const p of result.problems) problems.push({ path: p.path || path, message: p.message });
  return result.problems.length === 0 ? result.type : undefined;
}

/** Checks a PUT body against the verifier's rules and its target; answers the spec to store. */
export async function specOfHookBody(db: Db, body: HookBody): Promise<StoredHookSpec> {
  const problems: FieldProblem[] = [];
  if (body.body_schema !== undefined)
    for (const p of checkSchema(body.body_schema, "body.body_schema"))
      problems.push({ path: p.path, message: p.message });
  const bodyType = (body.body_schema ?? {}) as JsonSchema;
  if (body.verifier === "standard_webhooks") {
    const key = secretBytes(body.secret);
    if (typeof key === "string") problems.push({ path: "body.secret", message: key });
  }
  if (body.verifier === "header" && body.header === undefined)
    problems.push({ path: "body.header", message: "the header verifier needs the header that carries the secret" });
  if (body.verifier !== "header")
    for (const field of ["header", "id_header"] as const)
      if (body[field] !== undefined)
        problems.push({ path: `body.${field}`, message: `only the header verifier reads ${field}` });
  if ((body.start === undefined) === (body.signal === undefined))
    problems.push({ path: "body", message: "give exactly one of start and signal" });
  if (body.start !== undefined) {
    const target = { process: body.start.process, channel: body.start.channel ?? null, version: null };
    const resolved = await resolveTarget(db, db, target);
    if (!resolved.ok) problems.push({ path: "body.start", message: resolved.reason });
    const shape = compiled(body.start.input ?? {}, "body.start.input", problems);
    const type = shape && checked(shape, bodyType, "body.start.input", problems);
    if (shape && type && resolved.ok)
      problems.push(...typeFitsInput(shape, type, resolved.def, resolved.version, "body.start.input"));
    if (body.start.business_key !== undefined) compiled(body.start.business_key, "body.start.business_key", problems);
  }
  if (body.signal !== undefined) {
    const resolved = await resolveTarget(db, db, { process: body.signal.process, channel: null, version: null });
    if (!resolved.ok) problems.push({ path: "body.signal.process", message: resolved.reason });
    else if (!resolved.def.tasks.some((t) => t.id === body.signal?.task && t.action?.type === "external"))
      problems.push({
        path: "body.signal.task",
        message: `process "${body.signal.process}" version ${resolved.version} has no external task "${body.signal.task}"`,
      });
    const shape = compiled(body.signal.result ?? "$: body", "body.signal.result", problems);
    if (shape) checked(shape, bodyType, "body.signal.result", problems);
    compiled(body.signal.business_key, "body.signal.business_key", problems);
  }
  if (problems.length > 0) {
    const lines = problems.map((p) => `${p.path}: ${p.message}`).join("; ");
    throw invalid(`the hook is not valid: ${lines}`, problems);
  }
  return {
    header: body.header?.toLowerCase() ?? null,
    id_header: body.id_header?.toLowerCase() ?? null,
    tolerance_ms: body.tolerance_ms ?? DEFAULT_TOLERANCE_MS,
    body_schema: body.body_schema === undefined ? null : (body.body_schema as JsonSchema),
    start: body.start ?? null,
    signal: body.signal ?? null,
  };
}

/** Evaluates one of the spec's shapes for a request; throws a 400 naming the field when it fails. */
export function evaluateHookShape(
  value: Json,
  path: string,
  scope: { body: Json; headers: Json; query: Json },
  limits: ServerLimits,
  now: number,
): Json {
  try {
    return evaluateShape(compileShape(value, path), { ...scope, [NOW_KEY]: now }, evalBudget(evalLimitsOf(limits)));
  } catch (error) {
    throw invalid(`the hook's ${path} failed on this request: ${(error as Error).message}`, [
      { path, message: (error as Error).message },
    ]);
  }
}
