// The work of the definition checker that runs on a checker thread (checker.ts,
// docs/limits.md#the-checker-thread): the definition endpoints' requests (request-job.ts:
// parsing the body, the registration checks, hash, canonical text, inferred schemas), comparing
// two versions, and the upgrade verb's check. Pure: everything it needs from the database
// comes in the job.
//
// What crosses the thread boundary is what the event loop can hand over or take back without
// walking it in JavaScript: text (a request body as received, stored definitions as stored) and
// short lists of strings; results as the text the caller stores or answers (canonical text, the
// validate and compat answers), never as objects the event loop would have to parse or walk.
import { buildOpenApi, buildProcessOpenApi, type ProcessForOpenApi, registry } from "@baton/actions";
import { type Json, type JsonSchema, parseWrittenJson, stringifyJson } from "@baton/expr";
import {
  type CompatReport,
  CompatTooLarge,
  compareDefinitions,
  type Definition,
  excuseMembers,
  inferSchemas,
  type UpgradeGate,
  upgradeGates,
} from "@baton/model";
import { storedDefinitionFault } from "./stored-fault.js";
import { type RequestJob, type RequestReply, runRequest } from "./request-job.js";

export interface CompareJob {
  kind: "compare";
  /** JSON text of `[from, to, fromVersion, toVersion][]`. */
  pairs: string;
  /** --limit-compat-steps, per pair. */
  maxSteps: number;
  /** Members whose issues are excused (the request's `ignore`). */
  ignore: string[];
}

/** One compared pair: its report (excused) as JSON text, and what the answer's flags need of it. */
export interface ComparedText {
  report: string;
  compatible: boolean;
  passes: boolean;
}

/** The upgrade verb's check (engine/trees/upgrade.ts): the gates of moving one process between two stored versions. */
export interface UpgradeJob {
  kind: "upgrade";
  /** The two stored versions' canonical text, as stored (never parsed on the event loop). */
  from: string;
  to: string;
  fromVersion: number;
  toVersion: number;
  /** --limit-compat-steps. */
  maxSteps: number;
}

/** GET /definitions/{name}/openapi.json: the process's OpenAPI document, built from its stored text. */
export interface OpenApiJob {
  kind: "openapi";
  /** The stored canonical text of the process's latest version. */
  definition: string;
}

export type CheckJob = RequestJob | CompareJob | UpgradeJob | OpenApiJob;

/** One report per pair, or the first pair whose comparison passed maxSteps, or the first stored version that cannot be used. */
export type CompareReply =
  | { ok: true; compared: ComparedText[] }
  | { ok: false; tooLarge: number }
  | { ok: false; fault: string };

/** The gates (a structured clone: a short list of strings), or that the check passed maxSteps. */
export type UpgradeReply =
  | { ok: true; gates: UpgradeGate[] }
  | { ok: false; tooLarge: true }
  | { ok: false; fault: string };

/** The document as JSON text. */
export interface OpenApiReply {
  text: string;
}

export type CheckReply<J extends CheckJob> = J extends RequestJob
  ? RequestReply
  : J extends CompareJob
    ? CompareReply
    : J extends UpgradeJob
      ? UpgradeReply
      : OpenApiReply;

export function runCheckJob(job: CheckJob): RequestReply | CompareReply | UpgradeReply | OpenApiReply {
  switch (job.kind) {
    case "request":
      return runRequest(job);
    case "compare":
      return runCompare(job);
    case "upgrade":
      return runUpgrade(job);
    case "openapi":
      return { text: stringifyJson(buildProcessOpenApi(baseOpenApi(), withOutputType(job.definition))) };
  }
}

let base: ReturnType<typeof buildOpenApi> | undefined;
/** The API's own document, built once per thread. */
function baseOpenApi(): ReturnType<typeof buildOpenApi> {
  base ??= buildOpenApi(registry);
  return base;
}

function runUpgrade(job: UpgradeJob): UpgradeReply {
  const from = parseWrittenJson(job.from) as unknown as Definition;
  const to = parseWrittenJson(job.to) as unknown as Definition;
  const fault = storedDefinitionFault(to, job.toVersion);
  if (fault !== undefined) return { ok: false, fault };
  try {
    return { ok: true, gates: upgradeGates(from, to, job.fromVersion, job.toVersion, job.maxSteps) };
  } catch (error) {
    if (error instanceof CompatTooLarge) return { ok: false, tooLarge: true };
    throw error;
  }
}

function runCompare(job: CompareJob): CompareReply {
  // Canonical and stored text, written by this server: no duplicate keys.
  const pairs = parseWrittenJson(job.pairs) as unknown as Array<[Definition, Definition, number | null, number | null]>;
  const excused = new Set(job.ignore);
  const compared: ComparedText[] = [];
  for (const [i, [from, to, fromVersion, toVersion]] of pairs.entries()) {
    // A version of the request (null) passed registration's checks; a stored one may predate them.
    const fault = toVersion === null ? undefined : storedDefinitionFault(to, toVersion);
    if (fault !== undefined) return { ok: false, fault };
    let report: CompatReport;
    try {
      // Members' `compatible` are computed before excusing: they still report what was found.
      report = excuseMembers(compareDefinitions(from, to, fromVersion, toVersion, job.maxSteps), excused);
    } catch (error) {
      if (error instanceof CompatTooLarge) return { ok: false, tooLarge: i };
      throw error;
    }
    compared.push({
      report: stringifyJson(report as unknown as Json),
      compatible: report.upgrade.compatible && report.contract.compatible,
      passes: !report.issues.some((issue) => issue.gating),
    });
  }
  return { ok: true, compared };
}

/** The stored definition with its inferred output type, which types its events' `output` (docs/events.md). */
function withOutputType(text: string): ProcessForOpenApi {
  const definition = parseWrittenJson(text) as unknown as Definition & ProcessForOpenApi;
  let output: JsonSchema | undefined;
  try {
    output = inferSchemas(definition, 0).process_output as JsonSchema;
  } catch {
    output = undefined;
  }
  return output === undefined ? definition : { ...definition, output_schema: output };
}
