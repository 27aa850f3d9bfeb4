import type { Json } from "@baton/expr";
import {
  type DecodeContext,
  type Definition,
  type DefinitionLimits,
  type DefinitionProblem,
  decodeBatch,
  decodeDefinition,
  formatProblems,
} from "@baton/model";
import { invalid } from "../refusal.js";
import type { Db } from "../storage/db.js";
import { latestRaisesByName } from "./store.js";

/** What registration checks need to know about the processes already registered. */
async function decodeContext(
  db: Db,
  batchNames: string[],
  limits: Partial<DefinitionLimits> | undefined,
): Promise<DecodeContext> {
  const raises = await latestRaisesByName(db);
  return { processExists: (name) => raises.has(name), batchNames, processRaises: (name) => raises.get(name), limits };
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
  db: Db,
  raw: Json,
  limits?: Partial<DefinitionLimits>,
): Promise<Definition> {
  const decoded = decodeDefinition(raw, await decodeContext(db, [], limits));
  if (!decoded.ok) refuse(decoded.problems, (p) => joinPath("body", p.path));
  return decoded.definition;
}

/**
 * Decodes definitions sent together (members may name each other as children), or answers
 * 400 with each problem's path under `<at>[i]`, i being the member it belongs to.
 */
export async function decodeRequestBatch(
  db: Db,
  raws: Json[],
  at: string,
  limits?: Partial<DefinitionLimits>,
): Promise<Definition[]> {
  const names = namesOf(raws);
  const decoded = decodeBatch(raws, await decodeContext(db, names.filter(Boolean), limits));
  if (!decoded.ok) {
    refuse(decoded.problems, (p) => {
      const i = p.process ? names.indexOf(p.process) : -1;
      return joinPath(`${at}${i >= 0 ? `[${i}]` : ""}`, p.path);
    });
  }
  return decoded.definitions;
}
