// A schedule's stored spec (docs/schedules.md "The resource"): the PUT body as stored, read back
// into its calendar, its input shape and its policies; and the input shape's checks.
import {
  checkShape,
  compileShape,
  type CompiledShape,
  evalBudget,
  evaluateShape,
  type Json,
  NOW_KEY,
  type JsonSchema,
  ShapeError,
} from "@baton/expr";
import type { ScheduleBody } from "@baton/actions";
import { type Definition, isSubschema, NO_INPUT, parseDuration, validateInput } from "@baton/model";
import { evalLimitsOf, type ServerLimits } from "../../limits.js";
import { type FieldProblem, invalid } from "../../refusal.js";
import { type Calendar, compileCalendar } from "./calendar.js";

/** What `PUT /schedules/{name}` takes: the registry's type (its body schema has checked it). */
export type { ScheduleBody };

export const OVERLAP_POLICIES = ["skip", "buffer_one", "allow_all", "cancel_previous"] as const;
export type Overlap = (typeof OVERLAP_POLICIES)[number];
export type FireOrigin = "scheduled" | "trigger" | "backfill";

/** The longest catch-up window and jitter accepted (docs/schedules.md). */
export const MAX_CATCHUP_WINDOW_MS = 365 * 86_400_000;
export const MAX_JITTER_MS = 3_600_000;
export const DEFAULT_CATCHUP_WINDOW = "1m";

/** The stored spec: the body's calendar, input and policies, durations as written. */
export interface StoredSpec {
  cron: string[];
  every: string | number | null;
  time_zone: string;
  start_at: number | null;
  end_at: number | null;
  jitter: string | number | null;
  input: Json;
  overlap: Overlap;
  catchup_window: string | number;
  /** Where `every` counts from: start_at, else when the schedule was first created. */
  anchor_ms: number;
}

/** A stored spec read for firing: its calendar compiled, durations in ms, the shape compiled. */
export interface ReadSpec {
  stored: StoredSpec;
  calendar: Calendar;
  jitterMs: number;
  catchupWindowMs: number;
  input: CompiledShape;
}

/** The spec a body describes, checked; refuses with every problem at its field. */
export function specOfBody(body: ScheduleBody, anchorMs: number): ReadSpec {
  const problems: FieldProblem[] = [];
  const ms = (field: keyof ScheduleBody, value: string | number | undefined, max: number): number | null => {
    if (value === undefined) return null;
    try {
      const parsed = parseDuration(value);
      if (parsed <= max) return parsed;
      problems.push({ path: `body.${field}`, message: `must be at most ${max} ms; got ${parsed} ms` });
    } catch (error) {
      problems.push({ path: `body.${field}`, message: (error as Error).message });
    }
    return null;
  };
  const instant = (field: "start_at" | "end_at", value: string | undefined): number | null => {
    if (value === undefined) return null;
    const at = Date.parse(value);
    if (Number.isFinite(at)) return at;
    problems.push({ path: `body.${field}`, message: `"${value}" is not an ISO 8601 date-time` });
    return null;
  };
  if (body.channel !== undefined && body.version !== undefined)
    problems.push({ path: "body.version", message: "name a channel or a version, not both" });
  const stored: StoredSpec = {
    cron: body.cron ?? [],
    every: body.every ?? null,
    time_zone: body.time_zone ?? "UTC",
    start_at: instant("start_at", body.start_at),
    end_at: instant("end_at", body.end_at),
    jitter: body.jitter ?? null,
    input: body.input ?? {},
    overlap: body.overlap ?? "skip",
    catchup_window: body.catchup_window ?? DEFAULT_CATCHUP_WINDOW,
    anchor_ms: anchorMs,
  };
  if (stored.start_at !== null) stored.anchor_ms = stored.start_at;
  ms("every", body.every, Number.MAX_SAFE_INTEGER);
  ms("jitter", body.jitter, MAX_JITTER_MS);
  ms("catchup_window", body.catchup_window, MAX_CATCHUP_WINDOW_MS);
  let input: CompiledShape | undefined;
  try {
    input = compileShape(stored.input, "body.input");
  } catch (error) {
    if (!(error instanceof ShapeError)) throw error;
    problems.push({ path: error.path || "body.input", message: error.syntaxError.message });
  }
  if (problems.length > 0) throw refusal(problems);
  const read = readSpec(stored, input);
  return read;
}

/** Reads a stored spec; `input` when the caller compiled it already. */
export function readSpec(stored: StoredSpec, input?: CompiledShape): ReadSpec {
  const compiled = compileCalendar({
    cron: stored.cron,
    everyMs: stored.every === null ? null : parseDuration(stored.every),
    anchorMs: stored.anchor_ms,
    timeZone: stored.time_zone,
    startAt: stored.start_at,
    endAt: stored.end_at,
  });
  if (compiled.calendar === undefined) throw refusal(compiled.problems);
  return {
    stored,
    calendar: compiled.calendar,
    jitterMs: stored.jitter === null ? 0 : parseDuration(stored.jitter),
    catchupWindowMs: parseDuration(stored.catchup_window),
    input: input ?? compileShape(stored.input, "input"),
  };
}

function refusal(problems: FieldProblem[]) {
  const lines = problems.map((p) => `${p.path}: ${p.message}`).join("; ");
  return invalid(`the schedule is not valid: ${lines}`, problems);
}

/** The type of the `schedule` root an input shape reads (docs/schedules.md "The resource"). */
const SCHEDULE_ROOT = {
  type: "object",
  properties: {
    name: { type: "string" },
    fire_time: { type: "string" },
    fire_ms: { type: "integer" },
    origin: { type: "string", enum: ["scheduled", "trigger", "backfill"] },
  },
  required: ["name", "fire_time", "fire_ms", "origin"],
  additionalProperties: false,
};

/**
 * Problems of the input shape against `def`'s input_schema: its templates type-checked with
 * the `schedule` root, and the type it builds accepted by the schema. Only what is certain to
 * be refused is a problem (a shape the checker cannot decide is left to the fire's validation).
 */
export function inputShapeProblems(input: CompiledShape, def: Definition, version: number): FieldProblem[] {
  const checked = checkShape(input, {
    roots: { schedule: SCHEDULE_ROOT },
    rootNotes: { input: "a schedule's input reads only `schedule`", state: "a schedule's input reads only `schedule`" },
  });
  const problems: FieldProblem[] = checked.problems.map((p) => ({ path: p.path || "body.input", message: p.message }));
  if (problems.length > 0) return problems;
  return typeFitsInput(input, checked.type, def, version, "body.input");
}

/**
 * The problems certain to refuse the value a checked shape builds (its type `type`) as the
 * input of `def` version `version`, at `path` and below; schedules and hooks share it.
 */
export function typeFitsInput(
  input: CompiledShape,
  type: JsonSchema,
  def: Definition,
  version: number,
  path: string,
): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const target = `the input_schema of process "${def.name}" version ${version}`;
  const result = isSubschema(closedObjects(input, type) as never, def.input_schema ?? NO_INPUT, {
    bDefs: def.$defs,
    names: { a: "the value the input shape builds", b: target },
  });
  for (const issue of result.issues)
    if (issue.certain) problems.push({ path: `${path}${valuePath(issue.path)}`, message: issue.message });
  return problems;
}

/** The value path a schema pointer speaks of: `/properties/at/type` → `.at`, `/items/minimum` → `[]`. */
function valuePath(pointer: string): string {
  const segments = pointer.split("/").filter(Boolean);
  let out = "";
  for (let i = 0; i < segments.length; i++) {
    if (segments[i] === "properties" && i + 1 < segments.length) out += `.${segments[++i]}`;
    else if (segments[i] === "items") out += "[]";
    else break;
  }
  return out;
}

/**
 * The inferred type with every object the shape writes literally closed: a shape's object node
 * builds exactly its keys, while the checker types objects open (a value read from elsewhere
 * may hold more).
 */
function closedObjects(shape: CompiledShape, type: JsonSchema): JsonSchema {
  if (shape.kind !== "object" || type.type !== "object") return type;
  const properties = (type.properties ?? {}) as Record<string, JsonSchema>;
  const closed: Record<string, JsonSchema> = {};
  for (const [key, node] of shape.entries)
    closed[key] = properties[key] === undefined ? {} : closedObjects(node, properties[key]);
  return { ...type, properties: closed, additionalProperties: false };
}

/** The input of one fire: the shape evaluated and checked against the version it starts. */
export function fireInput(
  spec: ReadSpec,
  name: string,
  fireAt: number,
  origin: FireOrigin,
  now: number,
  def: Definition,
  limits: ServerLimits,
): { ok: true; value: Json } | { ok: false; reason: string } {
  let value: Json;
  try {
    const schedule = { name, fire_time: new Date(fireAt).toISOString(), fire_ms: fireAt, origin };
    value = evaluateShape(spec.input, { schedule, [NOW_KEY]: now }, evalBudget(evalLimitsOf(limits)));
  } catch (error) {
    return { ok: false, reason: `the input shape failed: ${(error as Error).message}` };
  }
  const checked = validateInput(def, value);
  if (checked.ok) return checked;
  const lines = checked.problems.map((p) => `${p.path}: ${p.message}`).join("; ");
  return { ok: false, reason: `the input does not match the input_schema of process "${def.name}": ${lines}` };
}
