import { createHash } from "node:crypto";
import { type CompiledShape, compileShape, evaluateShape, type Json, LIMITS_KEY, stringifyJson } from "@baton/expr";
import { type Definition, parseDuration } from "@baton/model";
import type { CompiledDefinition } from "../advance/compiled-definition.js";
import type { InstanceState } from "../advance/instance-state.js";
import type { LeasedRow } from "../leases.js";

// What an advance must hold before it runs (docs/flow-control.md "Slots"): the slots and permits
// its instance's definition declares for the task it sits on, each with its evaluated key.

export type FlowReason = "concurrency" | "rate_limit";

export interface FlowNeed {
  scope: string;
  key: string;
  reason: FlowReason;
  limit: number;
  /** A rate limit's period; 0 for concurrency. */
  perMs: number;
  /** The visit the slot is for; -1: a process slot, held while the instance is live. */
  taskEpoch: number;
  /** The attempt (retry_count) a rate permit is for; -1 otherwise. */
  attempt: number;
}

const uses = new WeakMap<Definition, boolean>();

/** Whether `def` declares any flow control: when not, the engine does nothing more for it. */
export function usesFlowControl(def: Definition): boolean {
  let known = uses.get(def);
  if (known === undefined) {
    known =
      def.concurrency !== undefined || def.tasks.some((t) => t.concurrency !== undefined || t.rate_limit !== undefined);
    uses.set(def, known);
  }
  return known;
}

const compiledKeys = new WeakMap<Definition, Map<string, CompiledShape>>();

function compiledKey(def: Definition, at: string, key: string): CompiledShape {
  let keys = compiledKeys.get(def);
  if (keys === undefined) compiledKeys.set(def, (keys = new Map()));
  let compiled = keys.get(at);
  if (compiled === undefined) keys.set(at, (compiled = compileShape(key, at)));
  return compiled;
}

/** A key value as stored: a string as it is, anything else as JSON; past `maxChars`, its sha256. */
export function keyText(value: Json, maxChars: number): string {
  const text = typeof value === "string" ? value : stringifyJson(value);
  return text.length <= maxChars ? text : `sha256:${createHash("sha256").update(text).digest("hex")}`;
}

export interface NeedsContext {
  /** The config root (throws TaskFailure engine.config when a required setting is missing). */
  config(): { [key: string]: Json };
  now(): number;
  evalLimits: unknown;
  maxKeyChars: number;
}

/**
 * The slots and permits `row`'s next advance needs, in the order they are waited for: the
 * process slot (roots only: a child is part of its root's work, and counting it could make a
 * tree wait on itself), the task's concurrency slot, its rate permit. Key expressions may throw
 * (an evaluation error): the caller fails the instance with it.
 */
export function flowNeeds(
  compiled: CompiledDefinition,
  row: LeasedRow,
  state: InstanceState,
  ctx: NeedsContext,
): FlowNeed[] {
  const def = compiled.definition;
  if (!usesFlowControl(def)) return [];
  const needs: FlowNeed[] = [];
  const evalKey = (at: string, key: string | undefined, scope: Record<string, Json>) =>
    key === undefined
      ? ""
      : keyText(
          evaluateShape(compiledKey(def, at, key), { ...scope, [LIMITS_KEY]: ctx.evalLimits as Json }),
          ctx.maxKeyChars,
        );
  if (def.concurrency !== undefined && row.parentId === null)
    needs.push({
      scope: `process:${def.name}`,
      key: evalKey("concurrency.key", def.concurrency.key, { input: state.input, config: ctx.config() }),
      reason: "concurrency",
      limit: def.concurrency.limit,
      perMs: 0,
      taskEpoch: -1,
      attempt: -1,
    });
  const task = compiled.byId.get(row.task)?.task;
  if (task === undefined || (task.concurrency === undefined && task.rate_limit === undefined)) return needs;
  const scope = {
    input: state.input,
    outputs: state.outputs,
    self: { previous: state.outputs[task.id] ?? null },
    error: (state._error ?? null) as Json,
    config: ctx.config(),
    $now: ctx.now(),
  };
  if (task.concurrency !== undefined)
    needs.push({
      scope: `task:${def.name}/${task.id}`,
      key: evalKey(`tasks.${task.id}.concurrency.key`, task.concurrency.key, scope),
      reason: "concurrency",
      limit: task.concurrency.limit,
      perMs: 0,
      taskEpoch: row.taskEpoch,
      attempt: -1,
    });
  if (task.rate_limit !== undefined)
    needs.push({
      scope: `rate:${def.name}/${task.id}`,
      key: evalKey(`tasks.${task.id}.rate_limit.key`, task.rate_limit.key, scope),
      reason: "rate_limit",
      limit: task.rate_limit.limit,
      perMs: parseDuration(task.rate_limit.per),
      taskEpoch: row.taskEpoch,
      attempt: row.retryCount,
    });
  return needs;
}
