import type { DefinitionProblem } from "../definition.js";
import { describeKind, isPlainObject } from "../json-kind.js";
import type { DefinitionLimits } from "../limits.js";
import type { ProblemSink } from "../problems.js";
import { writtenOutNodes } from "../schema-size.js";
import { checkSchema } from "../schema-subset.js";

/** Where a decoder is: the sink, the task it is inside (if any), and the definition's `$defs` names. */
export interface Scope {
  sink: ProblemSink;
  task?: string;
  defNames: readonly string[];
  limits: DefinitionLimits;
  /** Work done so far for the whole definition (shared by every task's scope). */
  work: { patternChecks: number; refused: boolean; schemaNodes: number; schemasTooLarge: boolean };
  /** The definition's `$defs` as written, and each one's size written out (schema-size.ts). */
  defs: Record<string, unknown>;
  defSizes: Map<string, number>;
}

/**
 * Counts `n` pattern comparisons against limits.maxPatternChecks; false (after reporting once
 * at `path`) when the definition has used them up, and the caller skips the comparison.
 */
export function patternChecks(sc: Scope, n: number, path: string): boolean {
  if (sc.work.refused) return false;
  sc.work.patternChecks += n;
  if (sc.work.patternChecks <= sc.limits.maxPatternChecks) return true;
  sc.work.refused = true;
  report(
    sc,
    path,
    `checking the definition's code patterns takes more than ${sc.limits.maxPatternChecks} comparisons (the limit on pattern checks, docs/limits.md); use fewer or broader patterns`,
  );
  return false;
}

export function report(sc: Scope, path: string, message: string): void {
  sc.sink.add(path, message, sc.task);
}

export function reportAll(sc: Scope, problems: DefinitionProblem[]): void {
  for (const p of problems) sc.sink.add(p.path, p.message, sc.task);
}

/** The object, or undefined after reporting what was expected. */
export function expectObject(sc: Scope, raw: unknown, path: string, what: string): Record<string, unknown> | undefined {
  if (isPlainObject(raw)) return raw;
  report(sc, path, `expected ${what}, got ${describeKind(raw)}`);
  return undefined;
}

export function rejectUnknownFields(
  sc: Scope,
  obj: Record<string, unknown>,
  allowed: readonly string[],
  path: string,
  hint?: (key: string) => string | undefined,
): void {
  for (const key of Object.keys(obj)) {
    if (allowed.includes(key)) continue;
    const extra = hint?.(key) ?? suggest(key, allowed);
    report(sc, path, `unknown field "${key}"${extra === undefined ? "" : ` (${extra})`}`);
  }
}

function suggest(key: string, allowed: readonly string[]): string | undefined {
  const close = allowed.find((a) => editDistance(a, key) <= Math.max(1, Math.min(2, Math.floor(a.length / 3))));
  return close === undefined ? `expected one of ${allowed.join(", ")}` : `did you mean "${close}"?`;
}

function editDistance(a: string, b: string): number {
  const prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0];
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = prev[j];
      prev[j] = Math.min(prev[j] + 1, prev[j - 1] + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = tmp;
    }
  }
  return prev[b.length];
}

export function expectString(sc: Scope, raw: unknown, path: string, what = "a string"): string | undefined {
  if (typeof raw === "string") return raw;
  report(sc, path, `expected ${what}, got ${describeKind(raw)}`);
  return undefined;
}

export function expectBoolean(sc: Scope, raw: unknown, path: string): boolean | undefined {
  if (typeof raw === "boolean") return raw;
  report(sc, path, `expected true or false, got ${describeKind(raw)}`);
  return undefined;
}

/** A schema of the subset (docs/language.md "Schemas"), checked with `$ref`s resolved against the definition's `$defs`. */
export function decodeSchema(sc: Scope, raw: unknown, path: string): Record<string, unknown> | undefined {
  const problems = checkSchema(raw, path, { defs: sc.defNames });
  reportAll(sc, problems);
  if (problems.length === 0 && !sc.work.schemasTooLarge) measureWrittenOut(sc, raw, path);
  return isPlainObject(raw) ? raw : undefined;
}

/**
 * Refuses a schema larger written out than one type may be (schema-size.ts), and the
 * definition's schemas together past the checker's budget; either stops the typing of the
 * definition, whose readers would walk the schema written out.
 */
function measureWrittenOut(sc: Scope, raw: unknown, path: string): void {
  const { maxTypeNodes, maxCheckNodes } = sc.limits;
  const nodes = writtenOutNodes(raw, sc.defs, maxTypeNodes, sc.defSizes);
  sc.work.schemaNodes += nodes;
  if (nodes > maxTypeNodes)
    report(
      sc,
      path,
      `the schema written out, each $ref replaced by the $defs schema it names, is more than ${maxTypeNodes} nodes (the limit of one type, --limit-type-nodes, docs/limits.md); refer to shared definitions fewer times or nest them less`,
    );
  else if (sc.work.schemaNodes > maxCheckNodes)
    report(
      sc,
      path,
      `the definition's schemas written out, each $ref replaced by the $defs schema it names, are more than ${maxCheckNodes} nodes together (--limit-check-nodes, docs/limits.md)`,
    );
  else return;
  sc.work.schemasTooLarge = true;
}

/** A map of name → schema or null (`raises`, `responses`). */
export function decodeSchemaOrNull(sc: Scope, raw: unknown, path: string): Record<string, unknown> | null | undefined {
  if (raw === null) return null;
  return decodeSchema(sc, raw, path);
}
