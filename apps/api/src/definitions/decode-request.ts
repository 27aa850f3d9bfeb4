import { type Json, parseJson, stringifyJson } from "@baton/expr";
import {
  type Definition,
  type DefinitionLimits,
  type DefinitionProblem,
  formatProblems,
  type ValidateResult,
} from "@baton/model";
import { invalid } from "../refusal.js";
import type { Db } from "../storage/db.js";
import type { DecodeJob } from "./check-jobs.js";
import type { Checker } from "./checker.js";
import { latestRaisesByName } from "./store.js";

/** A definition that passed the registration checks, with what storing it needs. */
export interface CheckedDefinition {
  definition: Definition;
  /** Its canonical text: what `definitions.definition` stores. */
  canonical: string;
  hash: string;
  raises: string[];
  /** Its inferred schemas (when asked for), `version` 0: the caller knows the version. */
  schemas?: ValidateResult;
}

/**
 * Runs the registration checks on the checker thread (checker.ts): what they need to know
 * about the processes already registered is read here and sent with the job.
 */
async function check(
  checker: Checker,
  db: Db,
  raws: Json[],
  job: Pick<DecodeJob, "single" | "batchNames" | "limits" | "schemas">,
): Promise<{ ok: true; checked: CheckedDefinition[] } | { ok: false; problems: DefinitionProblem[] }> {
  const registered = [...(await latestRaisesByName(db))];
  const reply = await checker.run({ kind: "decode", raws: stringifyJson(raws), registered, ...job });
  if (!reply.ok) return reply;
  return {
    ok: true,
    checked: reply.decoded.map((d) => ({
      definition: parseJson(d.canonical) as unknown as Definition,
      canonical: d.canonical,
      hash: d.hash,
      raises: d.raises,
      ...(d.schemas !== undefined ? { schemas: parseJson(d.schemas) as unknown as ValidateResult } : {}),
    })),
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

/** The `name` of each raw definition ("" where it has none), in request order. */
function namesOf(raws: Json[]): string[] {
  return raws.map((r) => {
    const name = (r as { name?: unknown } | null)?.name;
    return typeof name === "string" ? name : "";
  });
}

/**
 * Decodes one definition from a request body, or answers 400 with paths under `body`;
 * `limits` are the server's (docs/limits.md), the defaults where absent.
 */
export async function decodeRequestDefinition(
  checker: Checker,
  db: Db,
  raw: Json,
  limits?: Partial<DefinitionLimits>,
): Promise<CheckedDefinition> {
  const decoded = await check(checker, db, [raw], { single: true, batchNames: [], limits, schemas: false });
  if (!decoded.ok) refuse(decoded.problems, (p) => joinPath("body", p.path));
  return decoded.checked[0]!;
}

/**
 * Decodes definitions sent together (members may name each other as children), or answers
 * 400 with each problem's path under `<at>[i]`, i being the member it belongs to.
 */
export async function decodeRequestBatch(
  checker: Checker,
  db: Db,
  raws: Json[],
  at: string,
  options: { limits?: Partial<DefinitionLimits>; schemas?: boolean } = {},
): Promise<CheckedDefinition[]> {
  const names = namesOf(raws);
  const decoded = await check(checker, db, raws, {
    single: false,
    batchNames: names.filter(Boolean),
    limits: options.limits,
    schemas: options.schemas ?? false,
  });
  if (!decoded.ok) {
    refuse(decoded.problems, (p) => {
      const i = p.process ? names.indexOf(p.process) : -1;
      return joinPath(`${at}${i >= 0 ? `[${i}]` : ""}`, p.path);
    });
  }
  return decoded.checked;
}
