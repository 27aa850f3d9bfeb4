import { evaluateShape, type Json, type Scope } from "@baton/expr";
import { type ChildSpec, type Definition, type Schema, type Task, validateInput, validateValue } from "@baton/model";
import type { CompiledTask } from "../compiled-definition.js";
import type { InstanceState } from "../instance-state.js";
import { isSettled } from "../../statuses.js";
import { TaskFailure } from "../task-failure.js";
import { acceptFirst } from "../../../event-loop.js";

// `child`, `child_map` and `child_list` tasks (docs/language.md#children). A visit runs in two advances:
// the first evaluates the children's inputs, validates them against each child's input_schema
// and spawns them (written with the parent's advance, which parks the parent in phase
// `children`); the last child to settle wakes the parent (commit.ts, pending_children), and the
// second advance collects their outcomes. `_spawn` in the state ties the spawn to its
// task_epoch, so an earlier visit's leftovers are never mistaken for this visit's children.

/** A child to insert with the parent's write. */
export interface ChildSpawn {
  id: string;
  /** child_map key, or null. */
  key: string | null;
  /** child_list index, or null. */
  index: number | null;
  process: string;
  version: number;
  /** Conformed against the child's input_schema. */
  input: Json;
  firstTask: string;
}

/** A child as its parent collects it; `output` with stored objects resolved. */
export interface ChildOutcome {
  id: string;
  status: string;
  output: Json | null;
  errorCode: string | null;
  errorMessage: string | null;
}

export interface ChildEnvironment {
  /**
   * The definition a child of `name` runs: `version` when given (not 0), else the version the
   * parent was pinned to for this task's child through a channel batch, else the latest.
   * Throws TaskFailure `engine.spawn` when there is none.
   */
  resolveChild(
    name: string,
    version: number | undefined,
    task: string,
  ): Promise<{ version: number; definition: Definition }>;
  loadChildren(ids: readonly string[]): Promise<ChildOutcome[]>;
  /**
   * Throws TaskFailure `engine.spawn` when starting `children` more children of this instance
   * would pass the tree's depth or instance limit (docs/limits.md#trees).
   */
  reserveChildren(task: string, children: number): Promise<void>;
  newId(): string;
}

/**
 * Children one task visit may start by default (--limit-children-per-visit): they are inserted
 * with the parent's write, in one statement, so this bounds that statement (and a runaway
 * `over`). Larger fan-outs nest.
 */
export const MAX_CHILDREN_PER_SPAWN = 10_000;

/**
 * Children planned, and built into the advance's write (pump/commit.ts), per turn of the event
 * loop: 10,000 children in one turn held it 0.3 s (docs/limits.md#trees).
 */
export const CHILDREN_PER_TURN = 500;

/** `spawned`: park until they settle. `done`: the task's result; `started` when the visit also began in this advance (an empty child_list). */
export type ChildStep = { kind: "spawned"; spawns: ChildSpawn[] } | { kind: "done"; result: Json; started?: true };

/** A child ended `failed` (or was cancelled): its ancestors fail with its code; never caught by on_error. */
export class ChildFailed extends TaskFailure {}

interface Planned {
  key: string | null;
  index: number | null;
  spec: ChildSpec;
  input: Json | undefined;
}

/**
 * One advance of a child task: spawn its children, or — when this visit already spawned them
 * and the last one woke it — collect their outcomes. Throws TaskFailure for a raised child
 * (`error.child_key`/`child_index` in `context`), ChildFailed for a failed one, and
 * `engine.input` for a child input its input_schema refuses.
 */
export async function runChildren(
  here: CompiledTask,
  state: InstanceState,
  ctx: { taskEpoch: number; scope: Scope; defs?: Record<string, Schema>; env: ChildEnvironment; maxChildren?: number },
): Promise<ChildStep> {
  const { taskEpoch, env } = ctx;
  const id = here.task.id;
  const spawn = state._spawn as { task?: Json; task_epoch?: Json } | undefined;
  if (spawn !== undefined && spawn.task === id && Number(spawn.task_epoch) === taskEpoch) {
    try {
      const result = await collect(here.task, state, env, ctx.defs);
      delete state._spawn;
      return { kind: "done", result };
    } catch (error) {
      // A failed child fails this instance but keeps `_spawn`: an operator retry revives the
      // child and puts this visit back to waiting for it (trees/retry.ts). Anything
      // else (a raised child, output.invalid) ends the spawn: a retry rule spawns anew.
      if (!(error instanceof ChildFailed)) delete state._spawn;
      throw error;
    }
  }
  delete state._spawn;

  const planned = plan(here, ctx.scope);
  const maxChildren = ctx.maxChildren ?? MAX_CHILDREN_PER_SPAWN;
  if (planned.length > maxChildren) {
    throw new TaskFailure(
      "engine.spawn",
      `task "${id}" would start ${planned.length} children; at most ${maxChildren} may be started by one task visit (--limit-children-per-visit)`,
    );
  }
  if (planned.length > 0) await env.reserveChildren(id, planned.length);
  const spawns: ChildSpawn[] = [];
  for (const p of planned) {
    const where = p.key !== null ? `child "${p.key}"` : p.index !== null ? `child [${p.index}]` : "the child";
    const { version, definition } = await env.resolveChild(
      p.spec.name,
      p.spec.version === 0 ? undefined : p.spec.version,
      id,
    );
    const checked = validateInput(definition, p.input);
    if (!checked.ok) {
      const lines = checked.problems.map((problem) => `${problem.path || "input"}: ${problem.message}`).join("; ");
      throw new TaskFailure(
        "engine.input",
        `${where}: the input does not match the input_schema of process "${definition.name}" version ${version}: ${lines}`,
      );
    }
    const first = definition.tasks[0];
    if (first === undefined)
      throw new TaskFailure(
        "engine.spawn",
        `${where}: process "${definition.name}" version ${version} has no tasks to run`,
      );
    spawns.push({
      id: env.newId(),
      key: p.key,
      index: p.index,
      process: definition.name,
      version,
      input: checked.value,
      firstTask: first.id,
    });
    if (spawns.length % CHILDREN_PER_TURN === 0) await acceptFirst();
  }

  const action = here.task.action!;
  state._children[id] =
    action.type === "child"
      ? spawns[0].id
      : action.type === "child_map"
        ? Object.fromEntries(spawns.map((s) => [s.key!, s.id]))
        : spawns.map((s) => s.id);
  // An empty child_list spawns nothing and continues at once.
  if (spawns.length === 0) return { kind: "done", result: [], started: true };
  state._spawn = { task: id, task_epoch: taskEpoch };
  return { kind: "spawned", spawns };
}

function plan(here: CompiledTask, scope: Scope): Planned[] {
  const task = here.task;
  const action = task.action!;
  const compiled = here.children;
  if (compiled === undefined) throw new TaskFailure("engine.definition", `task "${task.id}" is not a child task`);
  const inputOf = (key: string) => {
    const shape = compiled.inputs.get(key);
    return shape === undefined ? undefined : evaluateShape(shape, scope);
  };
  if (action.type === "child") return [{ key: null, index: null, spec: action, input: inputOf("") }];
  if (action.type === "child_map") {
    return Object.entries(action.children).map(([key, spec]) => ({ key, index: null, spec, input: inputOf(key) }));
  }
  if (action.type !== "child_list" || compiled.over === undefined)
    throw new TaskFailure("engine.definition", `task "${task.id}" is not a child task`);
  const over = evaluateShape(compiled.over, scope);
  if (!Array.isArray(over)) {
    throw new TaskFailure(
      "engine.expression",
      `child_list "over" of task "${task.id}" evaluated to ${over === null ? "null" : typeof over}, expected an array`,
    );
  }
  const spec: ChildSpec = { name: action.name, version: action.version };
  return over.map((element, index) => ({ key: null, index, spec, input: element }));
}

/** The children of this visit in authored order: their ids, keys and indexes from `_children`. */
function spawnedIds(task: Task, state: InstanceState): Array<{ id: string; key: string | null; index: number | null }> {
  const recorded = state._children[task.id];
  if (typeof recorded === "string") return [{ id: recorded, key: null, index: null }];
  if (Array.isArray(recorded)) return recorded.map((id, index) => ({ id: String(id), key: null, index }));
  if (recorded !== null && typeof recorded === "object")
    return Object.entries(recorded).map(([key, id]) => ({ id: String(id), key, index: null }));
  throw new TaskFailure(
    "engine.collect",
    `task "${task.id}" was woken to collect its children but the state records none`,
  );
}

async function collect(
  task: Task,
  state: InstanceState,
  env: ChildEnvironment,
  defs: Record<string, Schema> | undefined,
): Promise<Json> {
  const spawned = spawnedIds(task, state);
  const rows = new Map((await env.loadChildren(spawned.map((s) => s.id))).map((r) => [r.id, r]));
  const outcomes = spawned.map((s) => ({ ...s, row: rows.get(s.id) }));
  const where = (o: { id: string; key: string | null; index: number | null }) =>
    o.key !== null ? `child "${o.key}" (${o.id})` : o.index !== null ? `child [${o.index}] (${o.id})` : `child ${o.id}`;

  for (const o of outcomes) {
    if (o.row === undefined) throw new TaskFailure("engine.collect", `task "${task.id}": ${where(o)} does not exist`);
    if (!isSettled(o.row.status)) {
      // The last settling child wakes the parent, so this means the counter and the rows disagree.
      throw new TaskFailure(
        "engine.collect",
        `task "${task.id}" was woken to collect while ${where(o)} is still ${o.row.status}`,
      );
    }
  }
  const failed = outcomes.find((o) => o.row!.status === "failed" || o.row!.status === "cancelled");
  if (failed !== undefined) {
    const code = failed.row!.status === "cancelled" ? "engine.collect" : (failed.row!.errorCode ?? "engine.collect");
    throw new ChildFailed(code, `${where(failed)} ${failed.row!.status}: ${failed.row!.errorMessage ?? code}`);
  }
  const raised = outcomes.find((o) => o.row!.status === "raised");
  if (raised !== undefined) {
    const context: { [key: string]: Json } = {};
    if (raised.key !== null) context.child_key = raised.key;
    if (raised.index !== null) context.child_index = raised.index;
    throw new TaskFailure(
      raised.row!.errorCode ?? "engine.collect",
      raised.row!.errorMessage ?? "",
      undefined,
      context,
    );
  }

  const action = task.action!;
  const result: Json =
    action.type === "child"
      ? outcomes[0].row!.output
      : action.type === "child_map"
        ? Object.fromEntries(outcomes.map((o) => [o.key!, o.row!.output]))
        : outcomes.map((o) => o.row!.output);
  // result_schema types one child's output: child_list checks each element, child_map each key.
  if (action.type === "child" && action.result_schema !== undefined)
    checkResult(task, action.result_schema, result, "result", defs);
  if (action.type === "child_list" && action.result_schema !== undefined) {
    for (const o of outcomes) checkResult(task, action.result_schema, o.row!.output, `result[${o.index}]`, defs);
  }
  if (action.type === "child_map") {
    for (const o of outcomes) {
      const spec = action.children[o.key!];
      if (spec?.result_schema !== undefined)
        checkResult(task, spec.result_schema, o.row!.output, `result.${o.key}`, defs);
    }
  }
  return result;
}

function checkResult(
  task: Task,
  schema: Schema,
  value: Json,
  path: string,
  defs: Record<string, Schema> | undefined,
): void {
  const problems = validateValue(schema, value, defs, path);
  if (problems.length === 0) return;
  const lines = problems.map((p) => `${p.path || path}: ${p.message}`).join("; ");
  throw new TaskFailure(
    "output.invalid",
    `the children's output of task "${task.id}" does not match result_schema: ${lines}`,
  );
}
