import type { Definition, DefinitionProblem } from "../definition.js";
import { isPlainObject } from "../json-kind.js";
import { declaredRaises } from "../raises.js";
import type { DecodeContext } from "./decode-context.js";
import { decodeDefinition } from "./decode-definition.js";

/** Decodes a channel batch: members may name each other as children; a name given twice is a problem. */
export function decodeBatch(
  raws: unknown[],
  ctx: DecodeContext = {},
): { ok: true; definitions: Definition[] } | { ok: false; problems: DefinitionProblem[] } {
  const names = raws.map((r) => (isPlainObject(r) && typeof r.name === "string" ? r.name : undefined));
  const batchNames = [...new Set([...(ctx.batchNames ?? []), ...names.filter((n): n is string => n !== undefined)])];
  const problems: DefinitionProblem[] = [];
  const firstAt = new Map<string, number>();
  names.forEach((name, i) => {
    if (name === undefined) return;
    const first = firstAt.get(name);
    if (first === undefined) firstAt.set(name, i);
    else
      problems.push({
        process: name,
        path: "name",
        message: `process "${name}" appears twice in the batch (definitions[${first}] and definitions[${i}])`,
      });
  });
  // First pass: what each member raises, so a parent's on_error can be checked against a child of the same batch.
  const base: DecodeContext = { ...ctx, batchNames };
  const raisedByMember = new Map<string, string[]>();
  const firstPass = raws.map((raw) => {
    const r = decodeDefinition(raw, base);
    if (r.ok) raisedByMember.set(r.definition.name, declaredRaises(r.definition));
    return r;
  });
  const full: DecodeContext = {
    ...base,
    processRaises: (name) => raisedByMember.get(name) ?? (names.includes(name) ? undefined : ctx.processRaises?.(name)),
  };
  const definitions: Definition[] = [];
  raws.forEach((raw, i) => {
    // Only a member whose child tasks name another member can decode differently the second time.
    const r = namesMemberAsChild(raw, batchNames) ? decodeDefinition(raw, full) : firstPass[i];
    if (r.ok) definitions.push(r.definition);
    else
      problems.push(
        ...r.problems.map((p) =>
          p.process === undefined
            ? { ...p, path: p.path === "" ? `definitions[${i}]` : `definitions[${i}].${p.path}` }
            : p,
        ),
      );
  });
  return problems.length === 0 ? { ok: true, definitions } : { ok: false, problems };
}

/** Whether a raw definition has a child task naming one of `names` (read from the raw JSON: it may not decode). */
function namesMemberAsChild(raw: unknown, names: readonly string[]): boolean {
  if (!isPlainObject(raw) || !Array.isArray(raw.tasks)) return false;
  const named = (v: unknown) => isPlainObject(v) && typeof v.name === "string" && names.includes(v.name);
  return raw.tasks.some((task) => {
    const action = isPlainObject(task) ? task.action : undefined;
    if (!isPlainObject(action)) return false;
    return named(action) || (isPlainObject(action.children) && Object.values(action.children).some(named));
  });
}
