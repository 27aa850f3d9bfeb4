import { isLosslessNumber } from "@baton/expr";
import type { Definition } from "../definition.js";
import { describeKind, isPlainObject } from "../json-kind.js";
import { type DefinitionLimits, definitionLimits } from "../limits.js";
import { PROCESS_NAME } from "../names.js";
import { joinPath, problemSink } from "../problems.js";
import { endlessRoutingCycles, unreachableTasks } from "../reachability.js";
import { typeDefinition } from "../typing.js";
import { checkChildPatterns, checkRaisedAndPanicked } from "./cross-task-checks.js";
import type { DecodeContext, DecodeResult } from "./decode-context.js";
import { decodeConfigSchema, decodeDefs, decodeObjectSchema } from "./decode-document-schemas.js";
import { decodeConcurrency } from "./decode-flow.js";
import { decodeTask } from "./decode-task.js";
import { rejectUnknownFields, report, type Scope } from "./scope.js";

export type { DecodeContext, DecodeResult } from "./decode-context.js";

const DEFINITION_FIELDS = ["name", "tasks", "input_schema", "output", "config_schema", "$defs", "concurrency"];

export function decodeDefinition(raw: unknown, ctx: DecodeContext = {}): DecodeResult {
  try {
    return decode(raw, ctx);
  } catch (e) {
    // Every walk is recursive: absurdly deep JSON is refused instead of failing the request.
    if (!(e instanceof RangeError)) throw e;
    const process = isPlainObject(raw) && typeof raw.name === "string" ? raw.name : undefined;
    return {
      ok: false,
      problems: [
        {
          ...(process === undefined ? {} : { process }),
          path: "",
          message: "the definition is nested too deeply to check",
        },
      ],
    };
  }
}

function decode(raw: unknown, ctx: DecodeContext): DecodeResult {
  const sink = problemSink();
  const fail = (): DecodeResult => ({ ok: false, problems: sink.problems });
  if (!isPlainObject(raw)) {
    sink.add("", `expected a definition object {name, tasks, …}, got ${describeKind(raw)}`);
    return fail();
  }
  if (typeof raw.name === "string") sink.process = raw.name;
  const limits = definitionLimits(ctx.limits);
  // Size bounds first: every later walk is proportional to them.
  const tooLarge = sizeProblem(raw, limits);
  if (tooLarge !== undefined) {
    sink.add(tooLarge.path, tooLarge.message);
    return fail();
  }
  const defNames = isPlainObject(raw.$defs) ? Object.keys(raw.$defs) : [];
  const defs = isPlainObject(raw.$defs) ? raw.$defs : {};
  const sc: Scope = {
    sink,
    defNames,
    limits,
    work: { patternChecks: 0, refused: false, schemaNodes: 0, schemasTooLarge: false },
    defs,
    defSizes: new Map(),
  };

  rejectUnknownFields(sc, raw, DEFINITION_FIELDS, "", (k) =>
    k === "version" ? "versions are assigned by the server" : undefined,
  );
  const def: Definition = { name: "", tasks: [] };
  if (raw.name === undefined) report(sc, "", "a definition needs a name");
  else if (typeof raw.name !== "string")
    report(sc, "name", `expected a process name string, got ${describeKind(raw.name)}`);
  else if (!PROCESS_NAME.test(raw.name))
    report(
      sc,
      "name",
      `"${raw.name}" is not a valid process name: lower-case letters, digits, _ . - (starting with a letter or digit, at most 128 characters)`,
    );
  else def.name = raw.name;

  if (raw.$defs !== undefined) def.$defs = decodeDefs(sc, raw.$defs);
  if (raw.input_schema !== undefined) def.input_schema = decodeObjectSchema(sc, raw.input_schema, "input_schema");
  if (raw.config_schema !== undefined) def.config_schema = decodeConfigSchema(sc, raw.config_schema);
  if (raw.output !== undefined) def.output = raw.output as Definition["output"];
  if (raw.concurrency !== undefined) {
    const c = decodeConcurrency(sc, raw.concurrency, "concurrency");
    if (c !== undefined) def.concurrency = c;
  }

  let routingOk = true;
  const rawIndex: number[] = [];
  if (raw.tasks === undefined) report(sc, "", "a definition needs tasks (an array with at least one task)");
  else if (!Array.isArray(raw.tasks)) report(sc, "tasks", `expected an array of tasks, got ${describeKind(raw.tasks)}`);
  else if (raw.tasks.length === 0) report(sc, "tasks", "a definition needs at least one task");
  else {
    const ids = collectIds(sc, raw.tasks);
    const names = {
      self: typeof raw.name === "string" ? raw.name : undefined,
      batch: ctx.batchNames ?? [],
      exists: ctx.processExists,
    };
    raw.tasks.forEach((rawTask, index) => {
      const before = sink.problems.length;
      const task = decodeTask(
        sc,
        rawTask,
        { ids, index, isLast: index === (raw.tasks as unknown[]).length - 1 },
        names,
      );
      if (
        task === undefined ||
        sink.problems.slice(before).some((p) => /\.(switch|on_error)\b/.test(p.path) || p.path === `tasks[${index}]`)
      )
        routingOk = false;
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
    // A schema too large written out is already refused; typing would walk it written out.
    if (!sc.work.schemasTooLarge)
      for (const p of typeDefinition(def, undefined, limits).problems) sink.add(p.path, p.message, p.task);
    for (const p of sink.problems.slice(before))
      p.path = p.path.replace(/^tasks\[(\d+)\]/, (_, k) => `tasks[${rawIndex[Number(k)]}]`);
    // Reachability over a half-decoded routing graph would only add noise to the real problems.
    if (routingOk) {
      const position = new Map(def.tasks.map((t, i) => [t, i]));
      for (const task of unreachableTasks(def))
        sink.add(
          `tasks[${position.get(task)}]`,
          `task "${task.id}" is never reached from the first task ("${def.tasks[0].id}")`,
          task.id,
        );
      for (const cycle of endlessRoutingCycles(def)) {
        const ids = cycle.map((i) => `"${def.tasks[i].id}"`).join(" → ");
        sink.add(
          `tasks[${cycle[0]}]`,
          `tasks ${ids} → "${def.tasks[cycle[0]].id}" loop forever: none has an action and every step is unconditional`,
          def.tasks[cycle[0]].id,
        );
      }
    }
  }
  return sink.problems.length === 0 ? { ok: true, definition: def } : fail();
}

/**
 * The first bound the raw definition passes, in the order they are cheapest to check: nesting
 * depth (walked without recursion), task count, then its size written as JSON.
 */
function sizeProblem(
  raw: Record<string, unknown>,
  limits: DefinitionLimits,
): { path: string; message: string } | undefined {
  // Values and their depths on two stacks (no object per node: this walk sees every node); the
  // JSON size is summed on the way (strings without their escapes), no text is built.
  const values: unknown[] = [raw];
  const depths: number[] = [1];
  let bytes = 0;
  while (values.length > 0) {
    const value = values.pop();
    const depth = depths.pop()!;
    if (depth > limits.maxDepth)
      return {
        path: pathDeeperThan(raw, limits.maxDepth),
        message: `the definition is nested more than ${limits.maxDepth} levels deep here (the limit on definition nesting, docs/limits.md)`,
      };
    if (typeof value === "string") bytes += value.length + 3;
    else if (Array.isArray(value)) {
      bytes += 2;
      for (const v of value) {
        values.push(v);
        depths.push(depth + 1);
      }
    } else if (isPlainObject(value)) {
      bytes += 2;
      for (const k in value) {
        bytes += k.length + 4;
        values.push(value[k]);
        depths.push(depth + 1);
      }
    } else bytes += isLosslessNumber(value) ? value.value.length + 1 : String(value).length + 1;
  }
  if (Array.isArray(raw.tasks) && raw.tasks.length > limits.maxTasks)
    return {
      path: "tasks",
      message: `the definition has ${raw.tasks.length} tasks, more than the limit of ${limits.maxTasks} (docs/limits.md); split it into processes that call each other as children`,
    };
  if (bytes > limits.maxBytes)
    return {
      path: "",
      message: `the definition is about ${bytes} characters written as JSON, more than the limit of ${limits.maxBytes} (docs/limits.md)`,
    };
  return undefined;
}

/** The path of the first value (depth-first) nested deeper than `maxDepth` (only walked for a refusal). */
function pathDeeperThan(raw: unknown, maxDepth: number): string {
  const visit = (value: unknown, depth: number, path: string): string | undefined => {
    if (depth > maxDepth) return path;
    const entries: Array<[string | number, unknown]> = Array.isArray(value)
      ? [...value.entries()]
      : isPlainObject(value)
        ? Object.entries(value)
        : [];
    for (const [k, v] of entries) {
      const found = visit(v, depth + 1, joinPath(path, k));
      if (found !== undefined) return found;
    }
    return undefined;
  };
  return visit(raw, 1, "") ?? "";
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
