// The work of the definition checker that runs on a checker thread (checker.ts,
// docs/limits.md#the-checker-thread): decoding definitions (every registration check), their
// hash and canonical text, their inferred schemas, and comparing two versions. Pure: everything
// it needs from the database comes in the job.
//
// What crosses the thread boundary is what the event loop can hand over or take back without
// walking it again in JavaScript: raw definitions as a structured clone (native), unless they
// hold a LosslessNumber — a number JavaScript cannot hold exactly, a class instance a clone
// would turn into an ambiguous plain object — and then as lossless JSON text; results as the
// text the caller stores or answers (canonical text, the validate answer), never as objects
// the event loop would have to parse.
import { type Json, parseJson, stringifyJson } from "@baton/expr";
import {
  type CompatReport,
  CompatTooLarge,
  canonicalJson,
  compareDefinitions,
  type Definition,
  type DefinitionLimits,
  type DefinitionProblem,
  decodeBatch,
  decodeDefinition,
  declaredRaises,
  definitionHash,
  excuseMembers,
  inferSchemas,
  type UpgradeGate,
  upgradeGates,
} from "@baton/model";
import { type ChildReference, childReferences } from "./child-references.js";

export interface DecodeJob {
  kind: "decode";
  /** The raw definitions, or their lossless JSON text when they hold a LosslessNumber. */
  raws: Json[] | string;
  /** One definition (PUT /definitions): a batch's members may name each other as children. */
  single: boolean;
  /** Each registered process and the codes its latest version raises. */
  registered: Array<[string, string[]]>;
  /** Names registered together with these (a child may name them). */
  batchNames: string[];
  limits?: Partial<DefinitionLimits>;
  /**
   * POST /definitions/validate: also answer each definition's inferred schemas, with the version
   * it would get — from the latest version of its name (`[name, version, hash]`) given here.
   */
  validate?: Array<[string, number, string]>;
}

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

export type CheckJob = DecodeJob | CompareJob | UpgradeJob;

/** One decoded definition: what storing it needs, and (validate) its answer. */
export interface DecodedText {
  name: string;
  /** Its canonical text: what `definitions.definition` stores. */
  canonical: string;
  hash: string;
  raises: string[];
  children: ChildReference[];
  /** JSON text of its ValidateResult (validate only). */
  validated?: string;
}

export type DecodeReply = { ok: true; decoded: DecodedText[] } | { ok: false; problems: DefinitionProblem[] };
/** One report per pair, or the first pair whose comparison passed maxSteps. */
export type CompareReply = { ok: true; compared: ComparedText[] } | { ok: false; tooLarge: number };

/** The gates (a structured clone: a short list of strings), or that the check passed maxSteps. */
export type UpgradeReply = { ok: true; gates: UpgradeGate[] } | { ok: false; tooLarge: true };

export type CheckReply<J extends CheckJob> = J extends DecodeJob
  ? DecodeReply
  : J extends CompareJob
    ? CompareReply
    : UpgradeReply;

export function runCheckJob(job: CheckJob): DecodeReply | CompareReply | UpgradeReply {
  if (job.kind === "decode") return runDecode(job);
  return job.kind === "compare" ? runCompare(job) : runUpgrade(job);
}

function runUpgrade(job: UpgradeJob): UpgradeReply {
  const from = parseJson(job.from) as unknown as Definition;
  const to = parseJson(job.to) as unknown as Definition;
  try {
    return { ok: true, gates: upgradeGates(from, to, job.fromVersion, job.toVersion, job.maxSteps) };
  } catch (error) {
    if (error instanceof CompatTooLarge) return { ok: false, tooLarge: true };
    throw error;
  }
}

function runDecode(job: DecodeJob): DecodeReply {
  const raws = typeof job.raws === "string" ? (parseJson(job.raws) as Json[]) : job.raws;
  const latest = new Map((job.validate ?? []).map(([name, version, hash]) => [name, { version, hash }]));
  const raises = new Map(job.registered);
  const ctx = {
    processExists: (name: string) => raises.has(name),
    batchNames: job.batchNames,
    processRaises: (name: string) => raises.get(name),
    limits: job.limits,
  };
  let definitions: Definition[];
  if (job.single) {
    const decoded = decodeDefinition(raws[0], ctx);
    if (!decoded.ok) return decoded;
    definitions = [decoded.definition];
  } else {
    const decoded = decodeBatch(raws, ctx);
    if (!decoded.ok) return decoded;
    definitions = decoded.definitions;
  }
  return {
    ok: true,
    decoded: definitions.map((def) => {
      const hash = definitionHash(def);
      const decoded: DecodedText = {
        name: def.name,
        canonical: canonicalJson(def),
        hash,
        raises: declaredRaises(def),
        children: childReferences(def),
      };
      if (job.validate !== undefined) {
        // The version it would get if registered now: the latest when unchanged, else the next.
        const last = latest.get(def.name);
        const version = last === undefined ? 1 : last.hash === hash ? last.version : last.version + 1;
        decoded.validated = stringifyJson(inferSchemas(def, version) as unknown as Json);
      }
      return decoded;
    }),
  };
}

function runCompare(job: CompareJob): CompareReply {
  const pairs = parseJson(job.pairs) as unknown as Array<[Definition, Definition, number | null, number | null]>;
  const excused = new Set(job.ignore);
  const compared: ComparedText[] = [];
  for (const [i, [from, to, fromVersion, toVersion]] of pairs.entries()) {
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
