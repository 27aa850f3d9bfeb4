// The work of the definition checker that runs on a checker thread (checker.ts,
// docs/limits.md#the-checker-thread): decoding definitions (every registration check), their
// hash and canonical text, their inferred schemas, and comparing two versions. Pure: everything
// it needs from the database comes in the job.
//
// Definitions and schemas cross the thread boundary as JSON text written and read with
// @baton/expr's lossless JSON: a number JavaScript cannot hold exactly is a LosslessNumber,
// a class instance that a structured clone would turn into a plain object.
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
  inferSchemas,
} from "@baton/model";

export interface DecodeJob {
  kind: "decode";
  /** JSON text of the raw definitions. */
  raws: string;
  /** One definition (PUT /definitions): a batch's members may name each other as children. */
  single: boolean;
  /** Each registered process and the codes its latest version raises. */
  registered: Array<[string, string[]]>;
  /** Names registered together with these (a child may name them). */
  batchNames: string[];
  limits?: Partial<DefinitionLimits>;
  /** Also infer each definition's schemas (POST /definitions/validate). */
  schemas: boolean;
}

export interface CompareJob {
  kind: "compare";
  /** JSON text of `[from, to, fromVersion, toVersion][]`. */
  pairs: string;
  /** --limit-compat-steps, per pair. */
  maxSteps: number;
}

export type CheckJob = DecodeJob | CompareJob;

/** One decoded definition; `canonical` is its stored text, which the caller parses. */
export interface DecodedText {
  canonical: string;
  hash: string;
  raises: string[];
  /** JSON text of the inferred schemas (ValidateResult with version 0: the caller knows the version). */
  schemas?: string;
}

export type DecodeReply = { ok: true; decoded: DecodedText[] } | { ok: false; problems: DefinitionProblem[] };
/** JSON text of one CompatReport per pair, or the first pair whose comparison passed maxSteps. */
export type CompareReply = { ok: true; reports: string } | { ok: false; tooLarge: number };

export type CheckReply<J extends CheckJob> = J extends DecodeJob ? DecodeReply : CompareReply;

export function runCheckJob(job: CheckJob): DecodeReply | CompareReply {
  return job.kind === "decode" ? runDecode(job) : runCompare(job);
}

function runDecode(job: DecodeJob): DecodeReply {
  const raws = parseJson(job.raws) as Json[];
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
    decoded: definitions.map((def) => ({
      canonical: canonicalJson(def),
      hash: definitionHash(def),
      raises: declaredRaises(def),
      ...(job.schemas ? { schemas: stringifyJson(inferSchemas(def, 0) as unknown as Json) } : {}),
    })),
  };
}

function runCompare(job: CompareJob): CompareReply {
  const pairs = parseJson(job.pairs) as unknown as Array<[Definition, Definition, number | null, number | null]>;
  const reports: CompatReport[] = [];
  for (const [i, [from, to, fromVersion, toVersion]] of pairs.entries()) {
    try {
      reports.push(compareDefinitions(from, to, fromVersion, toVersion, job.maxSteps));
    } catch (error) {
      if (error instanceof CompatTooLarge) return { ok: false, tooLarge: i };
      throw error;
    }
  }
  return { ok: true, reports: stringifyJson(reports as unknown as Json) };
}
