// Over 300 lines on purpose: ONE table of every limit (flag, default, what it bounds), the one place main.ts,
// ServerConfig and limits.test.ts read them from; split, a limit could be missed by one of them.
// Every resource limit of the server, in one table (docs/limits.md): its flag, its default and
// what it bounds. main.ts registers each entry as a flag, ServerConfig.limits carries the
// values, and limits.test.ts checks that docs/limits.md lists every flag with its default.
// To add a limit: a field in ServerLimits, an entry in LIMITS, a row in docs/limits.md.
// The subpaths, not the packages' indexes: this table is loaded by `baton-api --help`, which
// must not load the expression language or ajv (test/server/process/lean-start.test.ts).
import type { EvalLimitKind } from "@baton/expr";
import { DEFAULT_EVAL_LIMITS, type EvalLimits } from "@baton/expr/eval-limits";
import { DEFAULT_DEFINITION_LIMITS, type DefinitionLimits } from "@baton/model/limits";
import { CONNECTION_FLAGS, type ConnectionLimits } from "@baton/http-edge";

// The connection flags are both servers' (packages/http-edge, docs/limits.md "Connections"): listed here like every other limit.
export interface ServerLimits extends ConnectionLimits {
  /** Expression nodes one evaluation may visit. */
  evalSteps: number;
  /** Characters (as JSON) of any value one evaluation builds. */
  valueBytes: number;
  /** Digits a number renders to in text before the exponent form. */
  numberDigits: number;
  /** Nesting levels of any value one evaluation builds. */
  valueDepth: number;
  /** Characters (as JSON) of the state one advance may write. */
  stateBytes: number;
  definitionTasks: number;
  definitionDepth: number;
  definitionBytes: number;
  patternLength: number;
  patternsPerTask: number;
  typeNodes: number;
  checkNodes: number;
  patternChecks: number;
  /** Work steps of comparing two versions (compat, upgrade). */
  compatSteps: number;
  /** Levels of children below a tree's root. */
  treeDepth: number;
  /** Instances (the root and all its descendants) in one tree. */
  treeInstances: number;
  /** Claims of an instance without a landed advance write before it fails with engine.crashed. */
  advanceAttempts: number;
  /** Definition checks running at once, one worker thread each (definitions/checker.ts). */
  checkerThreads: number;
  /** Definition checks waiting for a checker thread; one more is refused with 503. */
  checkerQueue: number;
  /** Characters of stored text whose parsed, and whose compiled, definitions are kept in memory. */
  definitionCache: number;
  /** Signals buffered for one instance (tasks not waiting yet); one more is a 409. */
  bufferedSignals: number;
  /** Bytes of one fetch response body; past it the attempt fails with output.too_large. */
  fetchResponseBytes: number;
  /** Children one task visit may start; more fail the visit with engine.spawn. */
  childrenPerVisit: number;
  /** Tasks an instance enters in a row without waiting or calling out; more fail it with engine.limit. */
  entriesWithoutWaiting: number;
  /** Nesting levels of a request body parsed on the event loop; deeper is a 400 before parsing. */
  bodyDepth: number;
  /** Schedules stored (docs/schedules.md "Bounds"). */
  schedules: number;
  /** Fire times one firing pass fires, over all schedules. */
  scheduleFiresPerPass: number;
  /** Fire times of one schedule one pass runs when more are due at once (a catch-up). */
  scheduleCatchupFires: number;
  /** Fire times one backfill may start. */
  scheduleBackfillFires: number;
  /** Fire records kept per schedule; older ones are pruned. */
  scheduleFiresKept: number;
  /** Event subscriptions stored (docs/events.md "Bounds"). */
  subscriptions: number;
  /** Deliveries one delivery pass claims and sends at once. */
  deliveriesPerPass: number;
  /** Attempts of one delivery before it parks as failed. */
  deliveryAttempts: number;
  /** Milliseconds one delivery attempt may take. */
  deliveryTimeoutMs: number;
  /** Bytes of a receiver's answer read; more fails the attempt. */
  deliveryResponseBytes: number;
  /** Longest wait between two attempts of one delivery, in milliseconds. */
  deliveryBackoffMs: number;
  /** Deliveries of one subscription parked as failed in a row before it is suspended. */
  subscriptionFailures: number;
  /** Events one redeliver request may queue again. */
  redeliverEvents: number;
  /** Inbound hooks stored. */
  hooks: number;
  /** Bytes of one request body to a hook. */
  hookBodyBytes: number;
  /** Rows counted on each side of a list page (items_before/items_after); past it the count is marked inexact. */
  pageCount: number;
  /** Requests one client address may have in flight at once, counted before authentication. */
  requestsPerAddress: number;
  /** Requests one credential (API token, JWT subject) may have in flight at once. */
  requestsPerCredential: number;
  /** Seconds a JWT may be valid for, from its iat (or from now) to its exp. */
  jwtLifetime: number;
  /** Task epochs of one instance the visit journal records (docs/safe-change.md "The visit journal"). */
  visitsRecorded: number;
  /** Characters (as JSON) of one visit record's values; a larger record keeps none and a reset cannot pass it. */
  visitRecordBytes: number;
  /** The largest limit a concurrency or rate_limit may declare (docs/flow-control.md). */
  flowMax: number;
  /** Characters of a flow-control key kept as written; a longer key is kept as its sha256. */
  flowKeyChars: number;
  /** Slots and permits one grant pass grants over all keys. */
  flowGrantsPerPass: number;
}

export interface LimitFlag {
  key: keyof ServerLimits;
  /** Without the leading dashes, e.g. `limit-eval-steps`. */
  flag: string;
  description: string;
  default: number;
  /**
   * The default on the embedded database where it must be lower: PGlite runs each statement on
   * the server's thread with one connection, so a verb or spawn over this many rows holds every
   * request, /healthz included (docs/limits.md "Large trees on PGlite"). A flag given wins.
   */
  pgliteDefault?: number;
  min: number;
}

export const LIMITS: readonly LimitFlag[] = [
  {
    key: "evalSteps",
    flag: "limit-eval-steps",
    description: "expression steps one evaluation (a template, a shape, a case) may take",
    default: DEFAULT_EVAL_LIMITS.maxSteps,
    min: 1000,
  },
  {
    key: "valueBytes",
    flag: "limit-value-bytes",
    description: "size (characters as JSON) of any value an evaluation builds",
    default: DEFAULT_EVAL_LIMITS.maxValueBytes,
    min: 1024,
  },
  {
    key: "numberDigits",
    flag: "limit-number-digits",
    description: "digits a number renders to in text; exponent form beyond",
    default: DEFAULT_EVAL_LIMITS.maxNumberDigits,
    min: 17,
  },
  {
    key: "valueDepth",
    flag: "limit-value-depth",
    description: "nesting levels of any value an evaluation builds",
    default: DEFAULT_EVAL_LIMITS.maxValueDepth,
    min: 8,
  },
  {
    key: "stateBytes",
    flag: "limit-state-bytes",
    description: "size (characters as JSON) of the instance state one advance may write",
    default: 32 * 1024 * 1024,
    min: 1024,
  },
  {
    key: "definitionTasks",
    flag: "limit-definition-tasks",
    description: "tasks in one definition",
    default: DEFAULT_DEFINITION_LIMITS.maxTasks,
    min: 1,
  },
  {
    key: "definitionDepth",
    flag: "limit-definition-depth",
    description: "nesting depth of a definition's JSON",
    default: DEFAULT_DEFINITION_LIMITS.maxDepth,
    min: 8,
  },
  {
    key: "definitionBytes",
    flag: "limit-definition-bytes",
    description: "size (characters as JSON) of one definition",
    default: DEFAULT_DEFINITION_LIMITS.maxBytes,
    min: 1024,
  },
  {
    key: "patternLength",
    flag: "limit-pattern-length",
    description: "characters of one on_error code pattern",
    default: DEFAULT_DEFINITION_LIMITS.maxPatternLength,
    min: 16,
  },
  {
    key: "patternsPerTask",
    flag: "limit-patterns-per-task",
    description: "on_error code patterns of one task",
    default: DEFAULT_DEFINITION_LIMITS.maxPatternsPerTask,
    min: 1,
  },
  {
    key: "typeNodes",
    flag: "limit-type-nodes",
    description: "schema nodes of one type the checker infers",
    default: DEFAULT_DEFINITION_LIMITS.maxTypeNodes,
    min: 100,
  },
  {
    key: "checkNodes",
    flag: "limit-check-nodes",
    description: "schema nodes of all types the checker infers for one definition",
    default: DEFAULT_DEFINITION_LIMITS.maxCheckNodes,
    min: 1000,
  },
  {
    key: "patternChecks",
    flag: "limit-pattern-checks",
    description: "code-pattern comparisons checking one definition (shadowed rules, children's codes)",
    default: DEFAULT_DEFINITION_LIMITS.maxPatternChecks,
    min: 1000,
  },
  {
    key: "compatSteps",
    flag: "limit-compat-steps",
    description: "work steps of comparing two versions of a process (POST /definitions/compat, upgrade)",
    default: DEFAULT_DEFINITION_LIMITS.maxCompatSteps,
    min: 10_000,
  },
  {
    key: "treeDepth",
    flag: "limit-tree-depth",
    description: "levels of children below a tree's root (a child task spawning deeper fails with engine.spawn)",
    default: 32,
    min: 1,
  },
  {
    key: "treeInstances",
    flag: "limit-tree-instances",
    description:
      "instances in one tree, its root included (a spawn that would pass it fails with engine.spawn); 1000 on PGlite",
    default: 10_000,
    pgliteDefault: 1_000,
    min: 2,
  },
  {
    key: "advanceAttempts",
    flag: "limit-advance-attempts",
    description:
      "claims of an instance without a landed advance write (crashes, failing writes) before it fails with engine.crashed",
    default: 10,
    min: 2,
  },
  {
    key: "checkerThreads",
    flag: "limit-checker-threads",
    description:
      "definition checks running at once in each lane (writes: register, upgrade; reads: validate, compat), each on its own worker thread",
    default: 1,
    min: 1,
  },
  {
    key: "checkerQueue",
    flag: "limit-checker-queue",
    description:
      "definition checks waiting for a checker thread in each lane; one more is refused with 503 unavailable",
    default: 8,
    min: 0,
  },
  {
    key: "definitionCache",
    flag: "limit-definition-cache",
    description:
      "characters of stored definition text whose parsed forms, and whose compiled forms, are kept in memory (least recently used out first)",
    default: 16 * 1024 * 1024,
    min: 0,
  },
  {
    key: "bufferedSignals",
    flag: "limit-buffered-signals",
    description: "signals buffered for one instance whose task is not waiting; one more is refused with 409 conflict",
    default: 100,
    min: 1,
  },
  {
    key: "fetchResponseBytes",
    flag: "limit-fetch-response-bytes",
    description: "bytes of one fetch response body; a longer one fails the attempt with output.too_large",
    // The same as MAX_RESPONSE_BYTES (engine/fetch/run-fetch.ts), the bound of a fetch run without the flag.
    default: 8 * 1024 * 1024,
    min: 1024,
  },
  {
    key: "childrenPerVisit",
    flag: "limit-children-per-visit",
    description:
      "children one task visit (child_list, child_map) may start; more fail the visit with engine.spawn; 1000 on PGlite",
    // The same as MAX_CHILDREN_PER_SPAWN (engine/advance/tasks/child.ts), the bound of an advance run without the flag.
    default: 10_000,
    pgliteDefault: 1_000,
    min: 1,
  },
  {
    key: "entriesWithoutWaiting",
    flag: "limit-entries-without-waiting",
    description: "tasks an instance enters in a row without waiting or calling out; more fail it with engine.limit",
    // The same as MAX_ENTRIES_WITHOUT_WAITING (engine/advance/advance.ts).
    default: 100_000,
    min: 1000,
  },
  {
    key: "bodyDepth",
    flag: "limit-body-depth",
    description:
      "nesting levels of arrays and objects in a request body (every endpoint but the definition endpoints); deeper is refused with 400 before parsing",
    // Room for a value at --limit-value-depth (128) inside the deepest envelope (resolve-batch's items).
    default: 160,
    min: 8,
  },
  {
    key: "schedules",
    flag: "limit-schedules",
    description: "schedules stored; creating one more is refused with 409 (docs/schedules.md)",
    default: 10_000,
    min: 1,
  },
  {
    key: "scheduleFiresPerPass",
    flag: "limit-schedule-fires-per-pass",
    description: "fire times one firing pass starts over all schedules, before the claim round runs",
    default: 200,
    min: 1,
  },
  {
    key: "scheduleCatchupFires",
    flag: "limit-schedule-catchup-fires",
    description:
      "fire times of one schedule run when more are due at once (after downtime or a pause); the rest are missed",
    default: 100,
    min: 1,
  },
  {
    key: "scheduleBackfillFires",
    flag: "limit-schedule-backfill-fires",
    description: "fire times one backfill may start; a range holding more is refused with 400",
    default: 1000,
    min: 1,
  },
  {
    key: "scheduleFiresKept",
    flag: "limit-schedule-fires-kept",
    description:
      "fire records kept per schedule (the newest); a sweep prunes older ones, which a backfill may then not reach",
    default: 1000,
    min: 10,
  },
  {
    key: "subscriptions",
    flag: "limit-subscriptions",
    description: "event subscriptions stored; creating one more is refused with 409 (docs/events.md)",
    default: 100,
    min: 1,
  },
  {
    key: "deliveriesPerPass",
    flag: "limit-deliveries-per-pass",
    description: "event deliveries one delivery pass claims and sends at once",
    default: 100,
    min: 1,
  },
  {
    key: "deliveryAttempts",
    flag: "limit-delivery-attempts",
    description: "attempts of one event delivery before it parks as failed",
    default: 15,
    min: 1,
  },
  {
    key: "deliveryTimeoutMs",
    flag: "limit-delivery-timeout-ms",
    description: "milliseconds one event delivery attempt may take, connection to answer",
    default: 10_000,
    min: 100,
  },
  {
    key: "deliveryResponseBytes",
    flag: "limit-delivery-response-bytes",
    description: "bytes of a webhook receiver's answer read; a longer answer fails the attempt",
    default: 65_536,
    min: 1024,
  },
  {
    key: "deliveryBackoffMs",
    flag: "limit-delivery-backoff-ms",
    description: "longest wait between two attempts of one event delivery (the waits double from 1 s up to it)",
    default: 3_600_000,
    min: 1000,
  },
  {
    key: "subscriptionFailures",
    flag: "limit-subscription-failures",
    description: "deliveries of one subscription parked as failed in a row (no success between) before it is suspended",
    default: 10,
    min: 1,
  },
  {
    key: "redeliverEvents",
    flag: "limit-redeliver-events",
    description: "events one redeliver request may queue again; a range holding more is refused with 400",
    default: 1000,
    min: 1,
  },
  {
    key: "hooks",
    flag: "limit-hooks",
    description: "inbound hooks stored; creating one more is refused with 409 (docs/events.md)",
    default: 100,
    min: 1,
  },
  {
    key: "hookBodyBytes",
    flag: "limit-hook-body-bytes",
    description: "bytes of one request body POSTed to a hook; a larger one is refused with 413 before it is verified",
    default: 1_048_576,
    min: 1024,
  },
  {
    key: "pageCount",
    flag: "limit-page-count",
    description:
      "rows a list counts on each side of a page (items_before/items_after); past it the count stops there and the page marks it items_after_exact: false",
    default: 1_000,
    min: 100,
  },
  {
    key: "requestsPerAddress",
    flag: "limit-requests-per-address",
    description:
      "requests one client address may have in flight at once (counted before authentication; the sign-in proxy is one address for everyone behind it); more are refused with 429",
    default: 256,
    min: 1,
  },
  {
    key: "requestsPerCredential",
    flag: "limit-requests-per-credential",
    description:
      "requests one credential (an API token; a JWT's subject, one person through the sign-in proxy) may have in flight at once; more are refused with 429",
    default: 64,
    min: 1,
  },
  {
    key: "jwtLifetime",
    flag: "limit-jwt-lifetime",
    description:
      "seconds a JWT may be valid for, from its iat (or from now when it has none) to its exp; a longer one is refused with 401 (the sign-in proxy mints 60 s ones)",
    default: 3600,
    min: 10,
  },
  ...CONNECTION_FLAGS,
  {
    key: "visitsRecorded",
    flag: "limit-visits-recorded",
    description:
      "task entries of one instance the visit journal records (the first ones); a reset cannot go back to a later entry (docs/safe-change.md)",
    // The same as MAX_VISITS_RECORDED (engine/advance/advance.ts).
    default: 10_000,
    min: 1,
  },
  {
    key: "visitRecordBytes",
    flag: "limit-visit-record-bytes",
    description:
      "size (characters as JSON) of the values one visit record keeps; a larger record keeps none, and a reset cannot rebuild a state past it",
    default: 1024 * 1024,
    min: 1024,
  },
  // Flow control (docs/flow-control.md).
  {
    key: "flowMax",
    flag: "limit-flow-max",
    description:
      "the largest limit a concurrency or rate_limit of a definition may declare; a larger one is refused at registration",
    default: DEFAULT_DEFINITION_LIMITS.maxFlowLimit,
    min: 1,
  },
  {
    key: "flowKeyChars",
    flag: "limit-flow-key-chars",
    description: "characters of a flow-control key kept as written; a longer key is kept as sha256:<hex> of its text",
    default: 256,
    min: 16,
  },
  {
    key: "flowGrantsPerPass",
    flag: "limit-flow-grants-per-pass",
    description: "slots and start permits one flow-control grant pass grants over all keys (the rest in the next pass)",
    default: 1000,
    min: 1,
  },
];

export const DEFAULT_LIMITS: Readonly<ServerLimits> = Object.freeze(
  Object.fromEntries(LIMITS.map((l) => [l.key, l.default])) as unknown as ServerLimits,
);

/** The flag of a limit, for messages: `--limit-eval-steps`. */
export function flagOf(key: keyof ServerLimits): string {
  return `--${LIMITS.find((l) => l.key === key)!.flag}`;
}

export function evalLimitsOf(limits: ServerLimits): EvalLimits {
  return {
    maxSteps: limits.evalSteps,
    maxValueBytes: limits.valueBytes,
    maxNumberDigits: limits.numberDigits,
    maxValueDepth: limits.valueDepth,
  };
}

/** The flag of the evaluation bound an ExprLimitError names. */
export function evalLimitFlag(kind: EvalLimitKind): string {
  const keys = {
    steps: "evalSteps",
    value_size: "valueBytes",
    value_depth: "valueDepth",
    number_digits: "numberDigits",
  } as const;
  return flagOf(keys[kind]);
}

export function definitionLimitsOf(limits: ServerLimits): DefinitionLimits {
  return {
    ...DEFAULT_DEFINITION_LIMITS,
    maxTasks: limits.definitionTasks,
    maxDepth: limits.definitionDepth,
    maxBytes: limits.definitionBytes,
    maxPatternLength: limits.patternLength,
    maxPatternsPerTask: limits.patternsPerTask,
    maxTypeNodes: limits.typeNodes,
    maxCheckNodes: limits.checkNodes,
    maxPatternChecks: limits.patternChecks,
    maxCompatSteps: limits.compatSteps,
    maxFlowLimit: limits.flowMax,
  };
}
