import { isLosslessNumber, type Json, stringifyJson } from "@baton/expr";
import { type DefinitionLimits, type DefinitionProblem, formatProblems } from "@baton/model";
import { invalid } from "../refusal.js";
import type { Db } from "../storage/db.js";
import type { DecodedText, DecodeJob } from "./check-jobs.js";
import type { Checker } from "./checker.js";
import { latestDefinition, latestRaisesByName } from "./store.js";

/** A definition that passed the registration checks: what storing it needs, and (validate) its answer. */
export type CheckedDefinition = DecodedText;

/** Whether a parsed JSON value holds a LosslessNumber anywhere (a structured clone would lose its class). */
function holdsLosslessNumber(value: Json): boolean {
  const stack: Json[] = [value];
  while (stack.length > 0) {
    const v = stack.pop()!;
    if (v === null || typeof v !== "object") continue;
    if (isLosslessNumber(v)) return true;
    if (Array.isArray(v)) stack.push(...v);
    else for (const key in v) stack.push(v[key]!);
  }
  return false;
}

/**
 * Runs the registration checks on the checker thread (checker.ts): what they need to know
 * about the processes already registered is read here and sent with the job.
 */
async function check(
  checker: Checker,
  db: Db,
  raws: Json[],
  job: Pick<DecodeJob, "single" | "batchNames" | "limits"> & { validate: boolean },
): Promise<{ ok: true; checked: CheckedDefinition[] } | { ok: false; problems: DefinitionProblem[] }> {
  const registered = [...(await latestRaisesByName(db))];
  let validate: DecodeJob["validate"];
  if (job.validate) {
    validate = [];
    for (const name of new Set(job.batchNames)) {
      const latest = await latestDefinition(db, name);
      if (latest) validate.push([name, latest.version, latest.hash]);
    }
  }
  const reply = await checker.run({
    kind: "decode",
    raws: holdsLosslessNumber(raws) ? stringifyJson(raws) : raws,
    registered,
    single: job.single,
    batchNames: job.batchNames,
    limits: job.limits,
    validate,
  });
  return reply.ok ? { ok: true, checked: reply.decoded } : reply;
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
  const decoded = await check(checker, db, [raw], { single: true, batchNames: [], limits, validate: false });
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
  /** `validate`: also answer each definition as POST /definitions/validate does (`validated`). */
  options: { limits?: Partial<DefinitionLimits>; validate?: boolean } = {},
): Promise<CheckedDefinition[]> {
  const names = namesOf(raws);
  const decoded = await check(checker, db, raws, {
    single: false,
    batchNames: names.filter(Boolean),
    limits: options.limits,
    validate: options.validate ?? false,
  });
  if (!decoded.ok) {
    refuse(decoded.problems, (p) => {
      const i = p.process ? names.indexOf(p.process) : -1;
      return joinPath(`${at}${i >= 0 ? `[${i}]` : ""}`, p.path);
    });
  }
  return decoded.checked;
}
