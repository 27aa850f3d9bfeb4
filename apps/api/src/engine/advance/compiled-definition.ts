import { type CompiledShape, compileShape, type Expr, type Json, parseExpression } from "@baton/expr";
import { type Definition, type FetchAction, parseDuration, type SwitchCase, type Task } from "@baton/model";

export interface CompiledFetch {
  action: FetchAction;
  url: CompiledShape;
  headers?: CompiledShape;
  query?: CompiledShape;
  body?: CompiledShape;
  /** A static `timeout.for`, or the expression of a `"$: expr"` one. */
  timeout: { ms: number } | { expr: Expr };
}

export interface CompiledCase {
  condition?: Expr;
  clause: SwitchCase;
}

export interface CompiledTask {
  task: Task;
  index: number;
  output?: CompiledShape;
  cases: CompiledCase[];
  fetch?: CompiledFetch;
  children?: CompiledChildren;
}

/** A child task's input shapes (by child_map key; `""` for child) or child_list's `over`. */
export interface CompiledChildren {
  inputs: Map<string, CompiledShape | undefined>;
  over?: CompiledShape;
}

export interface CompiledDefinition {
  definition: Definition;
  name: string;
  version: number;
  tasks: CompiledTask[];
  byId: Map<string, CompiledTask>;
  output?: CompiledShape;
}

/** A stored definition the engine cannot execute: instances on it fail with `engine.definition`. */
export class DefinitionFault extends Error {
  override readonly name = "DefinitionFault";
}

export const DEFAULT_FETCH_TIMEOUT_MS = 30_000;

/**
 * Tasks compiled between two yields to the event loop in compileDefinitionInSlices: about 2 ms
 * of work on an idle core for fetch tasks with templates, so the largest definition allowed
 * (10,000 tasks, 200–870 ms to compile whole on this machine) never holds the loop for more
 * than one slice (docs/limits.md#compiling-a-stored-definition).
 */
export const TASKS_PER_SLICE = 100;

/** The whole definition at once: for tests and small definitions. Faults as compileDefinitionInSlices. */
export function compileDefinition(definition: Definition, version: number): CompiledDefinition {
  return assemble(
    definition,
    version,
    definition.tasks.map((task, index) => compileTask(task, index)),
  );
}

/**
 * compileDefinition, yielding to the event loop after every TASKS_PER_SLICE tasks: the same
 * compiled definition, or the same first DefinitionFault (tasks in order, then the process
 * output), rejected before any instance runs on it. Every task is compiled before the first
 * advance, not on its first visit, so that a definition the engine cannot run still fails
 * every instance at its first advance, as a whole, never midway through a run.
 */
export async function compileDefinitionInSlices(definition: Definition, version: number): Promise<CompiledDefinition> {
  const tasks: CompiledTask[] = [];
  for (const [index, task] of definition.tasks.entries()) {
    if (index > 0 && index % TASKS_PER_SLICE === 0) await new Promise((resolve) => setImmediate(resolve));
    tasks.push(compileTask(task, index));
  }
  return assemble(definition, version, tasks);
}

function assemble(definition: Definition, version: number, tasks: CompiledTask[]): CompiledDefinition {
  return {
    definition,
    name: definition.name,
    version,
    tasks,
    byId: new Map(tasks.map((t) => [t.task.id, t])),
    output: definition.output === undefined ? undefined : shape(definition.output, "output"),
  };
}

function compileTask(task: Task, index: number): CompiledTask {
  const at = `tasks[${index}] ("${task.id}")`;
  const cases = (task.switch ?? []).map((clause, i) => ({
    clause,
    condition: clause.case === undefined ? undefined : expression(clause.case, `${at}.switch[${i}].case`),
  }));
  const compiled: CompiledTask = {
    task,
    index,
    cases,
    output: task.output === undefined ? undefined : shape(task.output, `${at}.output`),
  };
  const action = task.action;
  if (action?.type === "fetch") compiled.fetch = compileFetch(action, `${at}.action`);
  if (action?.type === "child") {
    compiled.children = {
      inputs: new Map([
        ["", action.input === undefined ? undefined : shape(action.input as Json, `${at}.action.input`)],
      ]),
    };
  } else if (action?.type === "child_map") {
    const inputs = new Map<string, CompiledShape | undefined>();
    for (const [key, spec] of Object.entries(action.children)) {
      inputs.set(
        key,
        spec.input === undefined ? undefined : shape(spec.input as Json, `${at}.action.children.${key}.input`),
      );
    }
    compiled.children = { inputs };
  } else if (action?.type === "child_list") {
    compiled.children = { inputs: new Map(), over: shape(action.over, `${at}.action.over`) };
  }
  return compiled;
}

function compileFetch(action: FetchAction, at: string): CompiledFetch {
  const out: CompiledFetch = { action, url: shape(action.url, `${at}.url`), timeout: { ms: DEFAULT_FETCH_TIMEOUT_MS } };
  if (action.headers !== undefined) out.headers = shape(action.headers as Json, `${at}.headers`);
  if (action.query !== undefined) out.query = shape(action.query as Json, `${at}.query`);
  if (action.body !== undefined) out.body = shape(action.body, `${at}.body`);
  const limit = action.timeout?.for;
  if (typeof limit === "string" && limit.trimStart().startsWith("$:")) {
    out.timeout = { expr: expression(limit.trimStart().slice(2), `${at}.timeout.for`) };
  } else if (limit !== undefined) {
    out.timeout = { ms: staticDuration(limit, `${at}.timeout.for`) };
  }
  return out;
}

function shape(value: Json, path: string): CompiledShape {
  try {
    return compileShape(value, path);
  } catch (error) {
    throw new DefinitionFault(`${path}: ${(error as Error).message}`);
  }
}

function expression(source: string, path: string): Expr {
  try {
    return parseExpression(source);
  } catch (error) {
    throw new DefinitionFault(`${path}: ${(error as Error).message}`);
  }
}

function staticDuration(value: string | number, path: string): number {
  try {
    return parseDuration(value);
  } catch (error) {
    throw new DefinitionFault(`${path}: ${(error as Error).message}`);
  }
}
