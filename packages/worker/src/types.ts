// The public types of @baton/worker. This file imports nothing from @baton/*: the packed package
// ships these declarations alone (scripts/pack.mjs refuses declarations that import workspace
// packages), so every type a user sees must be spelled out here.

/**
 * What one task kind looks like, for typing a worker. Supply it from types generated out of the
 * task's `result_schema` / `raises` (docs/worker.md "Typing from result_schema"):
 * `createWorker<{ input: PackInput; result: PackResult; raises: { out_of_stock: { sku: string } } }>(...)`.
 */
export interface TaskTypes {
  /** The task's `external_input`. */
  input: unknown;
  /** What the handler returns; the server validates it against `result_schema`. */
  result: unknown;
  /** Declared error codes → the type of their `data` (`null` when the code declares no data). */
  raises: Record<string, unknown>;
}

/** The untyped default: any input, any JSON result, any declared code. */
export interface AnyTask extends TaskTypes {
  input: unknown;
  result: unknown;
  raises: Record<string, unknown>;
}

/** A claimed external task, as `POST /external-tasks/claim` returns it (docs/api.md). */
export interface ExternalTask<Input = unknown> {
  token: string;
  process: string;
  version: number;
  task: string;
  external_input: Input;
  result_schema: Record<string, unknown>;
  raises: Record<string, Record<string, unknown> | null>;
  waiting_since: string;
  deadline: string | null;
  claimed_by: string;
  claim_expires: string;
  /** The instance waiting on this task. */
  instance_id: string;
  /** The root of its tree. */
  root_id: string;
  /** The business key of the tree (its root's `key`); null when none was given. */
  key: string | null;
  /**
   * The visit of the task. `${instance_id}:${task_epoch}` is the same for every claim and every
   * on_error retry of this visit: an idempotency key for the handler's own side effects
   * (docs/worker.md "Task identity").
   */
  task_epoch: number;
  /** 1, plus the on_error retries scheduled in this visit. */
  attempt: number;
  /**
   * The W3C trace context of the waiting instance, when the server traces (docs/tracing.md
   * "Workers"): the handler runs inside a span that is its child when `@opentelemetry/api` is
   * installed beside the worker.
   */
  traceparent?: string;
}

/** A process signal the worker can stop on. */
export type StopSignal = "SIGTERM" | "SIGINT" | "SIGHUP" | "SIGQUIT" | "SIGUSR1" | "SIGUSR2";

/** Why a handler's signal aborted: `signal.reason` is a `TaskStopped` with one of these. */
export type StopReason = "lost" | "cancelled" | "shutdown";

/** An error outcome the handler returns: resolved as `{error: {code, message?, data?}}`. */
export interface Raised<Code extends string = string, Data = unknown> {
  readonly kind: "baton.raised";
  readonly code: Code;
  readonly message?: string;
  readonly data?: Data;
}

export interface HandlerContext<T extends TaskTypes> {
  /**
   * Aborts when the claim is lost (another worker may hold it now), the instance no longer wants
   * the task (`cancelled`), or the worker shuts down past its grace period. Pass it to fetch,
   * child processes, database queries. `signal.reason` is a `TaskStopped`.
   */
  signal: AbortSignal;
  /** This worker's id, as `claimed_by` shows it. */
  workerId: string;
  /** An error outcome for one of the task's declared `raises` codes; return it from the handler. */
  raise<Code extends keyof T["raises"] & string>(
    code: Code,
    options?: { message?: string; data?: T["raises"][Code] },
  ): Raised<Code, T["raises"][Code]>;
}

/**
 * Answers one task. Return the result, or `context.raise(code, …)` for an error outcome. Throwing
 * releases the task so that it can be claimed again (by this worker or another).
 */
export type Handler<T extends TaskTypes> = (
  task: ExternalTask<T["input"]>,
  context: HandlerContext<T>,
) => Promise<T["result"] | Raised<keyof T["raises"] & string>> | T["result"] | Raised<keyof T["raises"] & string>;

/** What happened to one task, or a warning about the worker's own calls. */
export type WorkerEvent =
  | { type: "claimed"; task: ExternalTask }
  | { type: "resolved"; task: ExternalTask }
  | { type: "raised"; task: ExternalTask; code: string }
  | { type: "released"; task: ExternalTask; reason: string; error?: unknown }
  | { type: "lost"; task: ExternalTask; reason: string }
  | { type: "cancelled"; task: ExternalTask }
  | { type: "warning"; message: string; error?: unknown };

export interface WorkerOptions<T extends TaskTypes = AnyTask> {
  /** Base URL of the Baton API server, without `/api` (e.g. `http://127.0.0.1:8449`). */
  server: string;
  /** An API token with the `worker` permission (`svc_sk_…`); omit when the server runs without auth. */
  token?: string;
  /** Only tasks of this process. */
  process?: string;
  /** Only this task id (pair with `process`). */
  task?: string;
  /** Only this process version. */
  version?: number;
  handler: Handler<T>;
  /** Tasks handled at once (default 1). Each claim asks for at most the free slots. */
  concurrency?: number;
  /** Claim lease in ms, 1000 to 600000 (server default 30000). Renewed while the handler runs. */
  leaseMs?: number;
  /** The id shown as `claimed_by` (default `<hostname>:<pid>`). */
  workerId?: string;
  /**
   * Long-poll: ask the claim to wait up to this many ms for work (`wait_ms`). Used only when the
   * server's claim accepts `wait_ms`; otherwise the worker polls. Default 20000; 0 turns it off.
   */
  waitMs?: number;
  /** Wait between claims that found nothing, doubling per empty claim up to `maxPollMs` (default 1000). */
  pollMs?: number;
  /** Longest wait between claims (default 10000); also the cap of the backoff after failed calls. */
  maxPollMs?: number;
  /** Per call timeout in ms (default 30000; a long-poll claim gets `waitMs` on top). */
  callTimeoutMs?: number;
  /** Attempts of one renew/resolve/release call on transient failures (default 5). */
  callAttempts?: number;
  /** On stop, how long running handlers may finish before they are aborted and released (default 30000). */
  shutdownGraceMs?: number;
  /** Signals that stop the worker gracefully (default SIGTERM and SIGINT; [] to handle them yourself). */
  stopSignals?: StopSignal[];
  /** Claim once, handle what was claimed, then stop (scripts, the CLI's `--once`). */
  once?: boolean;
  /**
   * Send resolves that become ready while one is in flight together in one
   * `POST /external-tasks/resolve-batch` call (docs/worker.md "Batched resolves"); a server
   * without it gets single resolves. Default true.
   */
  batchResolves?: boolean;
  /** Observer of task outcomes and warnings (default: warnings go to stderr). */
  onEvent?: (event: WorkerEvent) => void;
  /** The fetch to use (default: the global fetch). */
  fetch?: typeof fetch;
  /** Sent as User-Agent. */
  userAgent?: string;
}

export interface Worker {
  /**
   * Claims and handles tasks until stopped (stop(), a stop signal, or `once`). Resolves once every
   * handler finished and every claim was resolved or released; rejects when the server refuses
   * the worker for good (bad token, missing permission, unknown process).
   */
  run(): Promise<void>;
  /** Stops claiming; running handlers get `shutdownGraceMs`, then are aborted and released. */
  stop(): Promise<void>;
  /** Tasks being handled now. */
  readonly active: number;
}
