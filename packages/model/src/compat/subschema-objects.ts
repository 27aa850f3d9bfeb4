import type { Schema } from "../definition.js";
import { isPlainObject } from "../json-kind.js";
import { type Ctx, type Defs, describe, pointerEscape, resolve, type SubschemaIssue } from "./subschema-kit.js";

// The subset relation on objects (subschema.ts): properties, required keys and
// additionalProperties, as validation accepts them and, in `reading` mode, as expressions read them.

export function checkObject(a: Schema, b: Schema, path: string, ctx: Ctx, out: SubschemaIssue[]): void {
  if (ctx.reading !== undefined) {
    checkObjectRead(a, b, path, ctx, ctx.reading.filled, out);
    return;
  }
  const aProps = isPlainObject(a.properties) ? (a.properties as Record<string, Schema>) : {};
  const bProps = isPlainObject(b.properties) ? (b.properties as Record<string, Schema>) : {};
  const aRequired = new Set(Array.isArray(a.required) ? (a.required as string[]) : []);
  const aExtraClosed = a.additionalProperties === false;
  const aExtra: Schema = isPlainObject(a.additionalProperties) ? (a.additionalProperties as Schema) : {};
  for (const name of Array.isArray(b.required) ? (b.required as string[]) : [])
    if (!aRequired.has(name))
      out.push({
        path: `${path}/properties/${pointerEscape(name)}`,
        message: `the new schema requires "${name}", which the old one ${name in aProps ? "leaves optional" : "never declares"}`,
        certain: true,
      });
  // With `properties` and no `additionalProperties`, conforming strips undeclared keys: a value
  // stored under `a` never has them, but a raw value sent to both could, hence only a doubt.
  const aStrips = isPlainObject(a.properties) && a.additionalProperties === undefined;
  for (const [name, bs] of Object.entries(bProps)) {
    const at = `${path}/properties/${pointerEscape(name)}`;
    if (name in aProps) ctx.check(aProps[name], bs, at, ctx, out);
    else if (aExtraClosed || out.some((i) => i.path === at)) continue;
    else if (aStrips) {
      const doubts: SubschemaIssue[] = [];
      ctx.check({}, bs, at, ctx, doubts);
      if (doubts.length > 0)
        out.push({
          path: at,
          message: `the new schema declares "${name}" as ${describe(bs)}; the old one does not declare it (it strips it), so a value sent with another "${name}" may now be refused`,
          certain: false,
        });
    } else ctx.check(aExtra, bs, at, ctx, out);
  }
  const bExtra = b.additionalProperties;
  if (bExtra === undefined) return;
  for (const [name, as] of Object.entries(aProps)) {
    if (name in bProps) continue;
    if (bExtra === false)
      out.push({
        path: `${path}/properties/${pointerEscape(name)}`,
        message: `the old schema allows "${name}", the new one refuses undeclared properties`,
        certain: true,
      });
    else ctx.check(as, bExtra as Schema, `${path}/properties/${pointerEscape(name)}`, ctx, out);
  }
  if (aExtraClosed) return;
  if (bExtra === false)
    out.push({
      path: `${path}/additionalProperties`,
      message: "the old schema allows undeclared properties, the new one refuses them",
      certain: true,
    });
  else ctx.check(aExtra, bExtra as Schema, `${path}/additionalProperties`, ctx, out);
}

const NULL_SCHEMA: Schema = { type: "null" };

function orNull(s: Schema): Schema {
  return { anyOf: [s, NULL_SCHEMA] };
}

function hasDefault(s: Schema | undefined, defs: Defs): boolean {
  if (s === undefined) return false;
  const r = resolve(s, defs);
  return "schema" in r && r.schema.default !== undefined;
}

/**
 * Reading mode (see SubschemaOptions.reading): for each property `b` can be read at, the values
 * `a` may hold there (null standing for a missing key) must be among those `b`'s type admits
 * (null included when `b` lets the key be missing: not required and no default). An
 * undeclared property is never read under `b` when `b` closes the object (registration refuses
 * the read), so nothing `a` stores there matters.
 */
function checkObjectRead(a: Schema, b: Schema, path: string, ctx: Ctx, filled: boolean, out: SubschemaIssue[]): void {
  const aProps = isPlainObject(a.properties) ? (a.properties as Record<string, Schema>) : {};
  const bProps = isPlainObject(b.properties) ? (b.properties as Record<string, Schema>) : {};
  const aRequired = new Set(Array.isArray(a.required) ? (a.required as string[]) : []);
  const bRequired = new Set(Array.isArray(b.required) ? (b.required as string[]) : []);
  const aClosed =
    a.additionalProperties === false || (filled && isPlainObject(a.properties) && a.additionalProperties === undefined);
  const aExtra: Schema = isPlainObject(a.additionalProperties) ? (a.additionalProperties as Schema) : {};
  const bExtra = isPlainObject(b.additionalProperties) ? (b.additionalProperties as Schema) : undefined;
  const readUnderB = (name: string): Schema | undefined => {
    const declared = bProps[name];
    if (declared === undefined) return bExtra === undefined ? undefined : orNull(bExtra);
    const present = bRequired.has(name) || hasDefault(declared, ctx.bDefs);
    return present ? declared : orNull(declared);
  };
  const names = [...new Set([...Object.keys(bProps), ...bRequired, ...(bExtra ? Object.keys(aProps) : [])])];
  for (const name of names) {
    const bRead = readUnderB(name);
    if (bRead === undefined) continue;
    const at = `${path}/properties/${pointerEscape(name)}`;
    if (name in aProps) {
      const declared = aProps[name];
      const present = aRequired.has(name) || (filled && hasDefault(declared, ctx.aDefs));
      if (!present) {
        const whenMissing: SubschemaIssue[] = [];
        ctx.check(NULL_SCHEMA, bRead, at, ctx, whenMissing);
        if (whenMissing.length > 0)
          out.push({
            path: at,
            message: `the new schema requires "${name}", which the old one leaves optional (a missing key reads as null)`,
            certain: true,
          });
      }
      ctx.check(declared, bRead, at, ctx, out);
      continue;
    }
    if (aClosed) {
      ctx.check(NULL_SCHEMA, bRead, at, ctx, out);
      continue;
    }
    const whenMissing: SubschemaIssue[] = [];
    ctx.check(NULL_SCHEMA, bRead, at, ctx, whenMissing);
    if (whenMissing.length > 0) {
      out.push({
        path: at,
        message: `the new schema requires "${name}", which the old one never declares (a missing key reads as null)`,
        certain: true,
      });
      continue;
    }
    const otherwise: SubschemaIssue[] = [];
    ctx.check(aExtra, bRead, at, ctx, otherwise);
    if (otherwise.length === 0) continue;
    out.push({
      path: at,
      message: `the new schema reads "${name}" as ${describe(bProps[name] ?? bRead)}; the old one does not declare it, so a stored value may hold another "${name}"`,
      certain:
        isPlainObject(a.properties) && a.additionalProperties === undefined ? false : otherwise.some((i) => i.certain),
    });
  }
  if (bExtra !== undefined && !aClosed)
    ctx.check(orNull(aExtra), orNull(bExtra), `${path}/additionalProperties`, ctx, out);
}
