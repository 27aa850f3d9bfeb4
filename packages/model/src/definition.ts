// The canonical form of a process definition: what `decodeDefinition` returns, what the
// api stores (as JSON) and hashes, and what the engine executes. Shorthands of the language
// (docs/language.md "Canonical form and `saved: false`") are always expanded here, so the
// engine never sees a shorthand.
// Shapes and templates are kept as written (JSON whose string leaves are templates);
// @baton/expr compiles them.

import type { Json } from "@baton/expr";

/** The JSON Schema subset of docs/language.md "Schemas". */
export type Schema = { [keyword: string]: unknown };

/** JSON written as is whose string leaves are templates (`$: expr`, `${ }`, literal). */
export type Shape = Json;

export type Goto = "next" | "end" | `$${string}`;

export interface AuthoredError {
  code: string;
  message: string;
}

export interface SwitchCase {
  /** A bare boolean expression; absent on the default case (always last). */
  case?: string;
  goto?: Goto;
  raise?: AuthoredError;
  panic?: AuthoredError;
}

export interface RetryPolicy {
  retries: number;
  /** Duration string, default "1s". */
  delay: string;
  /** Default 2. */
  factor: number;
  /** Duration string; default the larger of 5 minutes and `delay`. */
  max_delay: string;
}

export interface ErrorRule {
  /** Patterns with `%` as the only wildcard; absent on the catch-all (always last). */
  code?: string[];
  retry?: RetryPolicy;
  goto?: "end" | `$${string}`;
  raise?: AuthoredError;
  panic?: AuthoredError;
  not_reached?: boolean;
}

export interface Timeout {
  /** Duration: "30s", "2h30m", "1d", a number of ms, or "$: expr" (ms). */
  for?: string | number;
  /** RFC 3339, or a wall-clock time in `tz`. External tasks only. */
  until?: string;
  tz?: string;
}

export interface FetchAction {
  type: "fetch";
  url: string;
  /** Lower case; default "post". */
  method: string;
  headers?: { [name: string]: Shape };
  query?: { [name: string]: Shape };
  body?: Shape;
  result_schema?: Schema;
  responses?: { [status: string]: Schema | null };
  accepted_status?: number[];
  timeout?: Timeout;
}

export interface ExternalAction {
  type: "external";
  input?: Shape;
  result_schema?: Schema;
  timeout?: Timeout;
}

export interface ChildSpec {
  name: string;
  /** 0 or absent: the pinned version (channel batch), else the latest at spawn time. */
  version?: number;
  input?: Shape;
  result_schema?: Schema;
}

export interface ChildAction extends ChildSpec {
  type: "child";
}

export interface ChildMapAction {
  type: "child_map";
  children: { [key: string]: ChildSpec };
}

export interface ChildListAction {
  type: "child_list";
  name: string;
  /** "$: <array expression>" */
  over: string;
  version?: number;
  result_schema?: Schema;
}

export interface DelayAction {
  type: "delay";
  for?: string | number;
  until?: string;
  tz?: string;
}

export type Action = FetchAction | ExternalAction | ChildAction | ChildMapAction | ChildListAction | DelayAction;

/**
 * At most `limit` holders per value of `key` (docs/flow-control.md): on a process, live
 * instances; on a task, visits of that task. `key` is a template (`$: expr`, `${ }` or literal
 * text); absent, every holder shares one key.
 */
export interface Concurrency {
  key?: string;
  limit: number;
}

/** At most `limit` starts of the task's action per `per` (a static duration) per value of `key`. */
export interface RateLimit {
  key?: string;
  limit: number;
  per: string | number;
}

export interface Task {
  id: string;
  /** Absent: a routing-only task (runs inline, no checkpoint). */
  action?: Action;
  /** Exported as `outputs.<id>`; absent on an action task, the engine exports the action's result. */
  output?: Shape;
  /** Canonical: always an array; `[]` falls through to the next task. */
  switch: SwitchCase[];
  /** Canonical: always an array. */
  on_error: ErrorRule[];
  raises?: { [code: string]: Schema | null };
  only_once?: boolean;
  concurrency?: Concurrency;
  rate_limit?: RateLimit;
}

export interface Definition {
  name: string;
  tasks: Task[];
  input_schema?: Schema;
  output?: Shape;
  config_schema?: Schema;
  $defs?: { [name: string]: Schema };
  /** Live instances per key of an expression over `input` (docs/flow-control.md). */
  concurrency?: Concurrency;
}

/** One problem found in a definition; `path` is like `tasks[2].on_error[0].retry`. */
export interface DefinitionProblem {
  /** The process name when known. */
  process?: string;
  /** The task id when the problem is inside a task. */
  task?: string;
  path: string;
  message: string;
}
