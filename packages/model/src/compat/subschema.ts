// Whether every value one schema accepts is accepted by another, over the schema subset of
// docs/language.md. Sound by construction: a `certain` issue names a value `a` accepts and `b`
// refuses; where the check cannot decide (oneOf overlap, a union split across branches,
// unknown keywords) it reports an issue with `certain: false` instead of claiming a subset.
// In `reading` mode the question is weaker, as docs/compat.md explains: is every value stored
// under `a` read as a value of the type `b` gives it, where a missing key reads as null?
// The cases that recurse pass `check` down through the context (subschema-kit.ts).
import type { Json } from "@baton/expr";
import type { Schema } from "../definition.js";
import { isPlainObject } from "../json-kind.js";
import { validateValue } from "../schema-validate.js";
import {
  ALL_TYPES,
  constraining,
  type Ctx,
  describe,
  type JsonType,
  KNOWN,
  NUMERIC,
  num,
  resolve,
  type SubschemaIssue,
  typeAccepted,
  typeList,
  without,
} from "./subschema-kit.js";
import { checkObject } from "./subschema-objects.js";

export type { SubschemaIssue } from "./subschema-kit.js";

export interface SubschemaResult {
  /** No value of `a` is known to be refused by `b` (issues may still hold `certain: false` doubts). */
  subset: boolean;
  issues: SubschemaIssue[];
}

export interface SubschemaOptions {
  /** `$defs` that `$ref`s inside `a` resolve against (besides `a`'s own top-level `$defs`). */
  aDefs?: Record<string, Schema>;
  bDefs?: Record<string, Schema>;
  /** How messages name the two sides; default "the old schema" (a) and "the new schema" (b). */
  names?: { a: string; b: string };
  /**
   * Compare what expressions read rather than what validation accepts: a missing key reads as
   * null, so a property `b` requires but whose type admits null is satisfied by its absence, and
   * a `default` in `b` makes the read non-null (the typing of docs/language.md). `filled`: values
   * of `a` were conformed (defaults filled in, undeclared keys stripped), as a stored input is.
   */
  reading?: { filled: boolean };
}

/** Is `a` ⊆ `b` (every value valid against `a` valid against `b`)? */
export function isSubschema(a: Schema, b: Schema, options: SubschemaOptions = {}): SubschemaResult {
  const ctx: Ctx = {
    aDefs: { ...(options.aDefs ?? {}), ...ownDefs(a) },
    bDefs: { ...(options.bDefs ?? {}), ...ownDefs(b) },
    inProgress: new Set(),
    reading: options.reading,
    check,
  };
  const issues: SubschemaIssue[] = [];
  check(a, b, "", ctx, issues);
  const named =
    options.names === undefined
      ? issues
      : issues.map((i) => ({ ...i, message: rename(i.message, options.names as { a: string; b: string }) }));
  return { subset: !issues.some((i) => i.certain), issues: dedupe(named) };
}

// Messages are written as "the old schema/one" (a) versus "the new schema/one" (b).
function rename(message: string, names: { a: string; b: string }): string {
  return message.replace(/the (old|new) (schema|one)/g, (_, side: string) => (side === "old" ? names.a : names.b));
}

function ownDefs(s: Schema): Record<string, Schema> {
  return isPlainObject(s.$defs) ? (s.$defs as Record<string, Schema>) : {};
}

function dedupe(issues: SubschemaIssue[]): SubschemaIssue[] {
  const seen = new Set<string>();
  return issues.filter((i) => {
    const k = `${i.certain}|${i.path}|${i.message}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

function check(aIn: Schema, bIn: Schema, path: string, ctx: Ctx, out: SubschemaIssue[]): void {
  const ra = resolve(aIn, ctx.aDefs);
  const rb = resolve(bIn, ctx.bDefs);
  if ("missing" in ra || "missing" in rb) {
    const ref = "missing" in ra ? ra.missing : (rb as { missing: string }).missing;
    out.push({ path, message: `cannot resolve ${JSON.stringify(ref)}`, certain: false });
    return;
  }
  if (ra.ref !== undefined || rb.ref !== undefined) {
    const key = `${ra.ref ?? JSON.stringify(aIn)}|${rb.ref ?? JSON.stringify(bIn)}`;
    if (ctx.inProgress.has(key)) return;
    ctx.inProgress.add(key);
    try {
      check(ra.schema, rb.schema, path, ctx, out);
    } finally {
      ctx.inProgress.delete(key);
    }
    return;
  }
  const a = ra.schema;
  const b = rb.schema;
  if (constraining(b).length === 0) return;
  if (constraining(a).length === 0) {
    out.push({
      path,
      message: `the old schema accepts any value here (unknown), the new one requires ${describe(b)}`,
      certain: true,
    });
    return;
  }
  const unknownB = constraining(b).filter((k) => !KNOWN.has(k));
  if (unknownB.length > 0) {
    out.push({ path, message: `cannot compare keyword(s) ${unknownB.join(", ")}`, certain: false });
    return;
  }
  if (Array.isArray(a.enum)) {
    checkEnumValues(a.enum as Json[], b, path, ctx, out);
    return;
  }
  if (Array.isArray(a.anyOf) || Array.isArray(a.oneOf)) {
    checkUnionA(a, b, path, ctx, out);
    return;
  }
  if (Array.isArray(b.anyOf) || Array.isArray(b.oneOf)) {
    checkUnionB(a, b, path, ctx, out);
    return;
  }
  const accepted = checkTypes(a, b, path, out);
  if (Array.isArray(b.enum)) {
    checkEnumB(accepted, b, path, ctx, out);
    return;
  }
  const may = (t: JsonType) => accepted.includes(t);
  if (NUMERIC.some(may)) {
    checkLowerBound(a, b, "minimum", path, out, "a smaller number");
    checkUpperBound(a, b, "maximum", path, out, "a larger number");
  }
  if (may("string")) {
    checkLowerBound(a, b, "minLength", path, out, "a shorter string");
    checkUpperBound(a, b, "maxLength", path, out, "a longer string");
  }
  if (may("array")) {
    checkLowerBound(a, b, "minItems", path, out, "fewer items");
    checkUpperBound(a, b, "maxItems", path, out, "more items");
    if (isPlainObject(b.items))
      check(isPlainObject(a.items) ? (a.items as Schema) : {}, b.items as Schema, `${path}/items`, ctx, out);
  }
  if (may("object")) checkObject(a, b, path, ctx, out);
}

/** Types `a` allows that `b` also allows (all seven when `a` names none); reports the rest. */
function checkTypes(a: Schema, b: Schema, path: string, out: SubschemaIssue[]): JsonType[] {
  const ta = typeList(a);
  const tb = typeList(b);
  if (tb === undefined) return ta ?? ALL_TYPES;
  if (ta === undefined) {
    out.push({
      path: `${path}/type`,
      message: `the old schema allows any type here, the new one only ${tb.join(" or ")}`,
      certain: true,
    });
    return ALL_TYPES.filter((t) => typeAccepted(t, tb));
  }
  const accepted: JsonType[] = [];
  for (const t of ta) {
    if (typeAccepted(t, tb)) accepted.push(t);
    else if (t === "number" && tb.includes("integer")) {
      out.push({
        path: `${path}/type`,
        message: "the old schema allows fractional numbers, the new one only integers",
        certain: true,
      });
      accepted.push("integer");
    } else
      out.push({
        path: `${path}/type`,
        message: `the old schema allows ${t}, the new one only ${tb.join(" or ")}`,
        certain: true,
      });
  }
  return accepted;
}

function checkLowerBound(a: Schema, b: Schema, key: string, path: string, out: SubschemaIssue[], what: string): void {
  const lb = num(b[key]);
  if (lb === undefined) return;
  const la = num(a[key]);
  if (la === undefined || la < lb)
    out.push({
      path: `${path}/${key}`,
      message: `the new schema requires ${key} ${lb}; the old one allows ${what}${la === undefined ? "" : ` (${key} ${la})`}`,
      certain: true,
    });
}

function checkUpperBound(a: Schema, b: Schema, key: string, path: string, out: SubschemaIssue[], what: string): void {
  const ub = num(b[key]);
  if (ub === undefined) return;
  const ua = num(a[key]);
  if (ua === undefined || ua > ub)
    out.push({
      path: `${path}/${key}`,
      message: `the new schema requires ${key} ${ub}; the old one allows ${what}${ua === undefined ? "" : ` (${key} ${ua})`}`,
      certain: true,
    });
}

/** An enumerated `a` is a subset exactly when `b` accepts each listed value. */
function checkEnumValues(values: Json[], b: Schema, path: string, ctx: Ctx, out: SubschemaIssue[]): void {
  for (const v of values) {
    const problems = validateValue(b, v, ctx.bDefs);
    if (problems.length > 0)
      out.push({
        path,
        message: `the old schema allows ${JSON.stringify(v)}, which the new one refuses (${problems[0].message})`,
        certain: true,
      });
  }
}

/** `b` lists values; `a` (no enum) is inside only when its types have finitely many values, all listed. */
function checkEnumB(accepted: JsonType[], b: Schema, path: string, ctx: Ctx, out: SubschemaIssue[]): void {
  const finite: Record<string, Json[]> = { null: [null], boolean: [true, false] };
  for (const t of accepted) {
    const values = finite[t];
    if (values === undefined) {
      out.push({
        path: `${path}/enum`,
        message: `the new schema accepts only ${JSON.stringify(b.enum)}; the old one allows any ${t}`,
        certain: true,
      });
      continue;
    }
    checkEnumValues(values, b, path, ctx, out);
  }
}

function branchesOf(s: Schema): Schema[] {
  return ((Array.isArray(s.anyOf) ? s.anyOf : s.oneOf) as Schema[]).filter(isPlainObject) as Schema[];
}

/** A value of `a` fits its base and one branch: proven when the base alone, or every branch, fits `b`. */
function checkUnionA(a: Schema, b: Schema, path: string, ctx: Ctx, out: SubschemaIssue[]): void {
  const base = without(a, "anyOf", "oneOf");
  if (constraining(base).length > 0) {
    const viaBase: SubschemaIssue[] = [];
    check(base, b, path, ctx, viaBase);
    if (viaBase.length === 0) return;
  }
  for (const branch of branchesOf(a)) check({ ...base, ...branch }, b, path, ctx, out);
}

function checkUnionB(a: Schema, b: Schema, path: string, ctx: Ctx, out: SubschemaIssue[]): void {
  const base = without(b, "anyOf", "oneOf");
  if (constraining(base).length > 0) check(a, base, path, ctx, out);
  const types = typeList(a);
  // A multi-typed `a` may be covered by several branches together: check each type on its own.
  const parts = types !== undefined && types.length > 1 ? types.map((t) => ({ ...a, type: t })) : [a];
  const branches = branchesOf(b);
  const exclusive = Array.isArray(b.oneOf);
  for (const part of parts) {
    const results = branches.map((br) => {
      const issues: SubschemaIssue[] = [];
      check(part, { ...base, ...br }, path, ctx, issues);
      return issues;
    });
    const proven = results.findIndex((r) => r.length === 0);
    if (proven < 0) {
      const doubtful = results.find((r) => !r.some((i) => i.certain));
      if (doubtful !== undefined) out.push(...doubtful);
      else
        out.push({
          path,
          message: `no alternative of the new schema accepts ${describe(part)} as a whole (${results[0][0]?.message ?? "no alternatives"})`,
          certain: parts.length === 1 && typeList(part)?.length === 1,
        });
      continue;
    }
    if (!exclusive) continue;
    const pt = typeList(part) ?? ALL_TYPES;
    for (const [i, br] of branches.entries()) {
      if (i === proven) continue;
      const bt = typeList(br) ?? typeList(base) ?? ALL_TYPES;
      if (pt.some((t) => typeAccepted(t, bt) || bt.some((u) => typeAccepted(u, [t]))))
        out.push({
          path: `${path}/oneOf/${i}`,
          message: `a value may match more than one oneOf alternative of the new schema (${proven} and ${i}); cannot prove it is accepted`,
          certain: false,
        });
    }
  }
}
