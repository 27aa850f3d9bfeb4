// The request bodies of the four definition endpoints, handled whole on a checker thread
// (docs/limits.md "Requests"): they may be as large as --max-definition-body (4 MiB), and
// parsing that losslessly, validating it and walking it would hold the event loop for about a
// second. So the event loop hands the body over as the text it received, and the thread parses
// it, validates it against the endpoint's registry schema (the same validateBody every endpoint
// uses, so the answers are the same), runs the registration checks and answers with text and
// short fields only. Pure: what it needs from the database comes in the job.
import { registry } from "@baton/actions";
import { type Json, parseJsonFast, stringifyJson } from "@baton/expr";
import {
  canonicalJson,
  type Definition,
  type DefinitionLimits,
  type DefinitionProblem,
  decodeBatch,
  decodeDefinition,
  declaredRaises,
  definitionHash,
  formatProblems,
  inferSchemas,
} from "@baton/model";
import { validateBody } from "../http/request-validation.js";
import { type FieldProblem, invalid, Refusal, type RefusalKind } from "../refusal.js";
import { type ChildReference, childReferences } from "./child-references.js";

/** The endpoints whose bodies only a checker thread parses, with --max-definition-body as their limit. */
export const DEFINITION_ACTIONS: ReadonlySet<string> = new Set([
  "putDefinition",
  "putDefinitionBatch",
  "validateDefinitions",
  "compatDefinitions",
]);
export type DefinitionAction = "putDefinition" | "putDefinitionBatch" | "validateDefinitions" | "compatDefinitions";

/** A registered process: its name, the codes its latest version raises, that version and its hash. */
export type RegisteredProcess = [name: string, raises: string[], version: number, hash: string];

export interface RequestJob {
  kind: "request";
  action: DefinitionAction;
  /** The request body as received (UTF-8 text; "" when none was sent). */
  body: string;
  registered: RegisteredProcess[];
  limits?: Partial<DefinitionLimits>;
}

/** One decoded definition: what storing it needs, and (validate) its answer. */
export interface DecodedText {
  name: string;
  /** Its canonical text: what `definitions.definition` stores. */
  canonical: string;
  hash: string;
  raises: string[];
  children: ChildReference[];
  /** The names of its settings (`config_schema` properties). */
  settings: string[];
  /** JSON text of its ValidateResult (validate only). */
  validated?: string;
}

/** A side of POST /definitions/compat, with unsaved definitions already decoded. */
export type CheckedSelector =
  | { channel: string }
  | { versions: Record<string, number | string> }
  | { decoded: DecodedText[] };

export interface CheckedCompat {
  from: CheckedSelector;
  to: CheckedSelector;
  process?: string;
  ignore?: string[];
}

export type RequestReply =
  | { ok: true; decoded: DecodedText[]; channel?: string; compat?: CheckedCompat }
  | { ok: false; kind: RefusalKind; message: string; fields?: FieldProblem[] };

export function runRequest(job: RequestJob): RequestReply {
  try {
    return { ok: true, ...handle(job) };
  } catch (error) {
    if (!(error instanceof Refusal)) throw error;
    return { ok: false, kind: error.kind, message: error.message, fields: error.fields };
  }
}

function handle(job: RequestJob): { decoded: DecodedText[]; channel?: string; compat?: CheckedCompat } {
  const action = registry.find((a) => a.name === job.action)!;
  let raw: Json | undefined;
  if (job.body !== "") {
    try {
      raw = parseJsonFast(job.body);
    } catch (error) {
      throw invalid(`the request body is not valid JSON: ${(error as Error).message}`);
    }
  }
  const body = validateBody(action, raw) as any;
  const decode = decoder(job);
  switch (job.action) {
    case "putDefinition":
      return { decoded: decode.one(body) };
    case "putDefinitionBatch":
      return { decoded: decode.many(body.definitions, "body.definitions", false), channel: body.channel };
    case "validateDefinitions":
      if (!Array.isArray(body)) throw invalid("the request body must be an array of definitions");
      return { decoded: decode.many(body, "body", true) };
    case "compatDefinitions": {
      const side = (selector: any, name: "from" | "to"): CheckedSelector =>
        "definitions" in selector
          ? { decoded: decode.many(selector.definitions, `body.${name}.definitions`, false) }
          : selector;
      const compat: CheckedCompat = { from: side(body.from, "from"), to: side(body.to, "to") };
      if (body.process !== undefined) compat.process = body.process;
      if (body.ignore !== undefined) compat.ignore = body.ignore;
      return { decoded: [], compat };
    }
  }
}

/** The registration checks of this job's definitions, answering text (request paths in refusals). */
function decoder(job: RequestJob) {
  const raises = new Map(job.registered.map(([name, codes]) => [name, codes]));
  const latest = new Map(job.registered.map(([name, , version, hash]) => [name, { version, hash }]));
  const context = (batchNames: string[]) => ({
    processExists: (name: string) => raises.has(name),
    batchNames,
    processRaises: (name: string) => raises.get(name),
    limits: job.limits,
  });
  const text = (def: Definition, validate: boolean): DecodedText => {
    const hash = definitionHash(def);
    const decoded: DecodedText = {
      name: def.name,
      canonical: canonicalJson(def),
      hash,
      raises: declaredRaises(def),
      children: childReferences(def),
      settings: Object.keys(def.config_schema?.properties ?? {}),
    };
    if (validate) {
      // The version it would get if registered now: the latest when unchanged, else the next.
      const last = latest.get(def.name);
      const version = last === undefined ? 1 : last.hash === hash ? last.version : last.version + 1;
      decoded.validated = stringifyJson(inferSchemas(def, version) as unknown as Json);
    }
    return decoded;
  };
  return {
    /** One definition (PUT /definitions), or a 400 with paths under `body`. */
    one(raw: Json): DecodedText[] {
      const decoded = decodeDefinition(raw, context([]));
      if (!decoded.ok) refuse(decoded.problems, (p) => joinPath("body", p.path));
      return [text(decoded.definition, false)];
    },
    /** Definitions sent together (members may name each other as children), or a 400 with each problem under `<at>[i]`. */
    many(raws: Json[], at: string, validate: boolean): DecodedText[] {
      const names = raws.map((r) => {
        const name = (r as { name?: unknown } | null)?.name;
        return typeof name === "string" ? name : "";
      });
      const decoded = decodeBatch(raws, context(names.filter(Boolean)));
      if (!decoded.ok)
        refuse(decoded.problems, (p) => {
          const i = p.process ? names.indexOf(p.process) : -1;
          return joinPath(`${at}${i >= 0 ? `[${i}]` : ""}`, p.path);
        });
      return decoded.definitions.map((def) => text(def, validate));
    },
  };
}

function joinPath(prefix: string, path: string): string {
  if (!path) return prefix;
  return path.startsWith("[") ? `${prefix}${path}` : `${prefix}.${path}`;
}

/** 400: one summary sentence for people; every problem (with its task) in `fields` for tools. */
function refuse(problems: DefinitionProblem[], pathOf: (p: DefinitionProblem) => string): never {
  const first = formatProblems(problems.slice(0, 1)).split("\n")[0];
  const more =
    problems.length > 1
      ? ` (and ${problems.length - 1} more problem${problems.length > 2 ? "s" : ""}, listed in fields)`
      : "";
  throw invalid(
    `${first}${more}`,
    problems.map((p) => ({ path: pathOf(p), message: p.task ? `task "${p.task}": ${p.message}` : p.message })),
  );
}
