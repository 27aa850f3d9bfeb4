import type { Definition, DefinitionProblem, Schema } from "../definition.js";
import { codeMatches } from "../error-codes.js";
import { describeKind, isPlainObject } from "../json-kind.js";
import { MAP_KEY, PROCESS_NAME } from "../names.js";
import { joinPath, problemSink } from "../problems.js";
import { authoredCodeSites, declaredRaises } from "../raises.js";
import { endlessRoutingCycles, unreachableTasks } from "../reachability.js";
import { typeDefinition } from "../typing.js";
import { decodeTask } from "./decode-task.js";
import { decodeSchema, expectObject, rejectUnknownFields, report, type Scope } from "./scope.js";

/** What registration knows beyond the document itself (LANGUAGE §2.6). */
export interface DecodeContext {
  /** Whether a process is registered; without it child names are not checked. */
  processExists?: (name: string) => boolean;
  /** Names registered together with this one: a child may name them. */
  batchNames?: readonly string[];
  /** The codes a registered process can raise (its summary `raises`); undefined when unknown. */
  processRaises?: (name: string) => string[] | undefined;
}

export type DecodeResult = { ok: true; definition: Definition } | { ok: false; problems: DefinitionProblem[] };

const DEFINITION_FIELDS = ["name", "tasks", "input_schema", "output", "config_schema", "$defs"];
const CONFIG_TYPES = ["string", "number", "integer", "boolean"];

export function decodeDefinition(raw: unknown, ctx: DecodeContext = {}): DecodeResult {
  const sink = problemSink();
  const fail = (): DecodeResult => ({ ok: false, problems: sink.problems });
  if (!isPlainObject(raw)) {
    sink.add("", `expected a definition object {name, tasks, …}, got ${describeKind(raw)}`);
    return fail();
  }
  if (typeof raw.name === "string") sink.process = raw.name;
  const defNames = isPlainObject(raw.$defs) ? Object.keys(raw.$defs) : [];
  const sc: Scope = { sink, defNames };

  rejectUnknownFields(sc, raw, DEFINITION_FIELDS, "", (k) => (k === "version" ? "versions are assigned by the server" : undefined));
  const def: Definition = { name: "", tasks: [] };
  if (raw.name === undefined) report(sc, "", "a definition needs a name");
  else if (typeof raw.name !== "string") report(sc, "name", `expected a process name string, got ${describeKind(raw.name)}`);
  else if (!PROCESS_NAME.test(raw.name))
    report(sc, "name", `"${raw.name}" is not a valid process name: lower-case letters, digits, _ . - (starting with a letter or digit, at most 128 characters)`);
  else def.name = raw.name;

  if (raw.$defs !== undefined) def.$defs = decodeDefs(sc, raw.$defs);
  if (raw.input_schema !== undefined) def.input_schema = decodeObjectSchema(sc, raw.input_schema, "input_schema");
  if (raw.config_schema !== undefined) def.config_schema = decodeConfigSchema(sc, raw.config_schema);
  if (raw.output !== undefined) def.output = raw.output as Definition["output"];

  let routingOk = true;
  const rawIndex: number[] = [];
  if (raw.tasks === undefined) report(sc, "", "a definition needs tasks (an array with at least one task)");
  else if (!Array.isArray(raw.tasks)) report(sc, "tasks", `expected an array of tasks, got ${describeKind(raw.tasks)}`);
  else if (raw.tasks.length === 0) report(sc, "tasks", "a definition needs at least one task");
  else {
    const ids = collectIds(sc, raw.tasks);
    const names = { self: typeof raw.name === "string" ? raw.name : undefined, batch: ctx.batchNames ?? [], exists: ctx.processExists };
    raw.tasks.forEach((rawTask, index) => {
      const before = sink.problems.length;
      const task = decodeTask(sc, rawTask, { ids, index, isLast: index === (raw.tasks as unknown[]).length - 1 }, names);
      if (task === undefined || sink.problems.slice(before).some((p) => /\.(switch|on_error)\b/.test(p.path) || p.path === `tasks[${index}]`)) routingOk = false;
      if (task !== undefined) {
        def.tasks.push(task);
        rawIndex.push(index);
      } else routingOk = false;
    });
  }

  if (def.tasks.length > 0) {
    // Cross-task checks see def.tasks, which lacks tasks that could not be decoded at all:
    // their paths are mapped back to the index the author wrote.
    const before = sink.problems.length;
    checkRaisedAndPanicked(sc, def);
    checkChildPatterns(sc, def, ctx);
    for (const p of typeDefinition(def).problems) sink.add(p.path, p.message, p.task);
    for (const p of sink.problems.slice(before)) p.path = p.path.replace(/^tasks\[(\d+)\]/, (_, k) => `tasks[${rawIndex[Number(k)]}]`);
    // Reachability over a half-decoded routing graph would only add noise to the real problems.
    if (routingOk) {
      for (const task of unreachableTasks(def))
        sink.add(`tasks[${def.tasks.indexOf(task)}]`, `task "${task.id}" is never reached from the first task ("${def.tasks[0].id}")`, task.id);
      for (const cycle of endlessRoutingCycles(def)) {
        const ids = cycle.map((i) => `"${def.tasks[i].id}"`).join(" → ");
        sink.add(`tasks[${cycle[0]}]`, `tasks ${ids} → "${def.tasks[cycle[0]].id}" loop forever: none has an action and every step is unconditional`, def.tasks[cycle[0]].id);
      }
    }
  }
  return sink.problems.length === 0 ? { ok: true, definition: def } : fail();
}

/** Decodes a channel batch: members may name each other as children; a name given twice is a problem. */
export function decodeBatch(raws: unknown[], ctx: DecodeContext = {}): { ok: true; definitions: Definition[] } | { ok: false; problems: DefinitionProblem[] } {
  const names = raws.map((r) => (isPlainObject(r) && typeof r.name === "string" ? r.name : undefined));
  const batchNames = [...new Set([...(ctx.batchNames ?? []), ...names.filter((n): n is string => n !== undefined)])];
  const problems: DefinitionProblem[] = [];
  const firstAt = new Map<string, number>();
  names.forEach((name, i) => {
    if (name === undefined) return;
    const first = firstAt.get(name);
    if (first === undefined) firstAt.set(name, i);
    else problems.push({ process: name, path: "name", message: `process "${name}" appears twice in the batch (definitions[${first}] and definitions[${i}])` });
  });
  // First pass: what each member raises, so a parent's on_error can be checked against a child of the same batch.
  const base: DecodeContext = { ...ctx, batchNames };
  const raisedByMember = new Map<string, string[]>();
  for (const raw of raws) {
    const r = decodeDefinition(raw, base);
    if (r.ok) raisedByMember.set(r.definition.name, declaredRaises(r.definition));
  }
  const full: DecodeContext = { ...base, processRaises: (name) => raisedByMember.get(name) ?? (names.includes(name) ? undefined : ctx.processRaises?.(name)) };
  const definitions: Definition[] = [];
  raws.forEach((raw, i) => {
    const r = decodeDefinition(raw, full);
    if (r.ok) definitions.push(r.definition);
    else problems.push(...r.problems.map((p) => (p.process === undefined ? { ...p, path: p.path === "" ? `definitions[${i}]` : `definitions[${i}].${p.path}` } : p)));
  });
  return problems.length === 0 ? { ok: true, definitions } : { ok: false, problems };
}

function collectIds(sc: Scope, rawTasks: unknown[]): Set<string> {
  const ids = new Set<string>();
  const firstAt = new Map<string, number>();
  rawTasks.forEach((t, i) => {
    if (!isPlainObject(t) || typeof t.id !== "string") return;
    const first = firstAt.get(t.id);
    if (first !== undefined) sc.sink.add(`tasks[${i}].id`, `duplicate task id "${t.id}" (also tasks[${first}])`, t.id);
    else firstAt.set(t.id, i);
    ids.add(t.id);
  });
  return ids;
}

function decodeDefs(sc: Scope, raw: unknown): Record<string, Schema> | undefined {
  const obj = expectObject(sc, raw, "$defs", "an object of name → schema");
  if (obj === undefined) return undefined;
  const out: Record<string, Schema> = {};
  for (const [name, schema] of Object.entries(obj)) {
    const at = joinPath("$defs", name);
    if (!MAP_KEY.test(name)) report(sc, at, `$defs name "${name}" must match ${MAP_KEY.source}`);
    const s = decodeSchema(sc, schema, at);
    if (s !== undefined) out[name] = s;
  }
  return out;
}

function typeNames(schema: Record<string, unknown>): string[] | undefined {
  if (typeof schema.type === "string") return [schema.type];
  return Array.isArray(schema.type) ? (schema.type as string[]) : undefined;
}

/** input_schema describes the instance input, which is always an object (SPEC POST /instances). */
function decodeObjectSchema(sc: Scope, raw: unknown, path: string): Schema | undefined {
  const s = decodeSchema(sc, raw, path);
  if (s === undefined) return undefined;
  const types = typeNames(s);
  if (types !== undefined && !types.includes("object"))
    report(sc, path, `${path} must describe an object (the instance input), got type ${JSON.stringify(s.type)}`);
  return s;
}

/** config_schema is flat: settings come from environment variables, so every property is a scalar. */
function decodeConfigSchema(sc: Scope, raw: unknown): Schema | undefined {
  const s = decodeSchema(sc, raw, "config_schema");
  if (s === undefined) return undefined;
  const types = typeNames(s);
  if (types === undefined || types.length !== 1 || types[0] !== "object") report(sc, "config_schema", 'config_schema must be {type: "object", properties: {…}}');
  if (!isPlainObject(s.properties)) {
    report(sc, "config_schema", "config_schema needs properties (one per setting)");
    return s;
  }
  for (const [name, prop] of Object.entries(s.properties)) {
    const at = joinPath("config_schema.properties", name);
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) report(sc, at, `setting "${name}" must be letters, digits and _ (it names an environment variable)`);
    if (!isPlainObject(prop)) continue;
    const t = typeNames(prop);
    if (t === undefined || t.some((x) => !CONFIG_TYPES.includes(x)))
      report(sc, at, `a setting must be a scalar (type ${CONFIG_TYPES.join(", ")}): config_schema is flat`);
  }
  return s;
}

function checkRaisedAndPanicked(sc: Scope, def: Definition): void {
  const { raised, panicked } = authoredCodeSites(def);
  for (const [code, sites] of panicked) {
    const raisedAt = raised.get(code);
    if (raisedAt === undefined) continue;
    for (const at of sites)
      sc.sink.add(at, `code "${code}" is both raised (${raisedAt[0]}) and panicked here; a parent could not tell whether it may catch it — use two codes`, taskAt(def, at));
  }
}

function taskAt(def: Definition, path: string): string | undefined {
  const m = /^tasks\[(\d+)\]/.exec(path);
  return m === null ? undefined : def.tasks[Number(m[1])]?.id;
}

/** On a child task, a pattern no child can raise is almost always a typo (LANGUAGE §2.6). */
function checkChildPatterns(sc: Scope, def: Definition, ctx: DecodeContext): void {
  def.tasks.forEach((task, i) => {
    const a = task.action;
    if (a === undefined || (a.type !== "child" && a.type !== "child_map" && a.type !== "child_list")) return;
    const childNames = a.type === "child_map" ? Object.values(a.children).map((c) => c.name) : [a.name];
    const catchable = new Set<string>(["output.invalid"]);
    for (const name of childNames) {
      const raises = name === def.name ? declaredRaises(def) : ctx.processRaises?.(name);
      if (raises === undefined) return; // unknown child: nothing to check against
      for (const c of raises) catchable.add(c);
    }
    task.on_error.forEach((rule, j) => {
      rule.code?.forEach((pattern, k) => {
        if (![...catchable].some((c) => codeMatches(pattern, c)))
          sc.sink.add(
            `tasks[${i}].on_error[${j}].code[${k}]`,
            `no child of this task can raise "${pattern}" (they raise: ${[...catchable].sort().join(", ")})`,
            task.id,
          );
      });
    });
  });
}
