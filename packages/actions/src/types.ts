// Over 300 lines on purpose: ONE map from action name to request and response types, so that
// `client.call(name, …)` is typed; splitting it would split the map the client indexes.
// Hand-written TypeScript mirrors of the registry's request and response schemas, keyed by
// action name so that `client.call("getInstance", …)` is typed. registry.test.ts checks
// that every ActionName has exactly one registry entry; keep the two in step by hand.

import type { Json } from "@baton/expr";
import type { LogLevel } from "@baton/log";
import type { Permission } from "./action-spec.js";
import type { SortOrder } from "./pagination.js";
import type { FlowWaitReason, InstancePhase, InstanceStatus } from "./statuses.js";
import type { ListSchedulesQuery, Schedule, ScheduleBody, ScheduleFire, ScheduleWarning } from "./schedule-types.js";

export type { FireOutcome, OverlapPolicy } from "./schedule-types.js";
export type { ListSchedulesQuery, Schedule, ScheduleBody, ScheduleFire, ScheduleWarning };
import type { Delivery, ListDeliveriesQuery, RedeliverBody, Subscription, SubscriptionBody } from "./event-types.js";
export type { DeliveryStatus, EventType } from "./event-types.js";
export type { Delivery, ListDeliveriesQuery, RedeliverBody, Subscription, SubscriptionBody };
import type { Hook, HookBody, HookReceipt } from "./hook-types.js";
export type { Hook, HookBody, HookReceipt, HookRequestRecord, HookVerifier } from "./hook-types.js";

/** An audit-log entry's level: the one LogLevel, @baton/log's. */
export type { LogLevel };

/** A JSON value as the client returns it (big numbers arrive as LosslessNumber). */
export type JsonValue = Json;
/** A JSON Schema carried as data. */
export type JsonSchemaValue = { [keyword: string]: JsonValue };

export type { InstancePhase, InstanceStatus } from "./statuses.js";

// ---- shared ------------------------------------------------------------------------

export interface ListQuery<Sort extends string> {
  sort?: Sort;
  order?: SortOrder;
  limit?: number;
  after?: string;
  before?: string;
}

export interface PageInfo {
  size: number;
  items_before: number;
  items_after: number;
  /** Extension: present (false) only when items_before stopped at the server's count bound. */
  items_before_exact?: false;
  /** Extension: present (false) only when items_after stopped at the server's count bound. */
  items_after_exact?: false;
  sort: string;
  order: SortOrder;
  next_cursor: string | null;
  previous_cursor: string | null;
}

export interface Page<T> {
  items: T[];
  page: PageInfo;
}

/** An error outcome of an external task (docs/language.md "external"). */
export interface ErrorOutcome {
  code: string;
  message?: string;
  data?: JsonValue;
}

/** A process definition as sent (docs/language.md); the server validates it. */
export type DefinitionInput = { [field: string]: JsonValue };

// ---- definitions -------------------------------------------------------------------

export interface PutDefinitionResponse {
  name: string;
  saved: boolean;
  version: number;
}

export interface DefinitionSummary {
  name: string;
  version: number;
  created_at: string;
  actor?: string;
  /** Extension: the actor as people know it (a token's label), present with `actor` (docs/auth.md "Actors"). */
  actor_label?: string;
  raises?: string[];
}

export interface StoredDefinition extends DefinitionSummary {
  definition: { [key: string]: JsonValue };
}

export interface ListDefinitionsQuery extends ListQuery<"created_at" | "name" | "version"> {
  name?: string;
  created_after?: number;
  created_before?: number;
}

export interface PutDefinitionBatchBody {
  definitions: DefinitionInput[];
  channel: string;
}

export interface BatchResult {
  name: string;
  version: number;
  saved: boolean;
  previous: number;
}

export interface TaskSchemas {
  action_type: string | null;
  input?: JsonSchemaValue;
  output?: JsonSchemaValue;
  result?: JsonSchemaValue;
}

export interface ValidateResult {
  process: string;
  version: number;
  process_input: JsonSchemaValue;
  process_output: JsonSchemaValue;
  tasks: { [taskId: string]: TaskSchemas };
  $defs?: { [name: string]: JsonSchemaValue };
}

export type CompatSelector =
  | { channel: string }
  | { definitions: DefinitionInput[] }
  | { versions: { [process: string]: number | string } };

export interface CompatBody {
  from: CompatSelector;
  to: CompatSelector;
  process?: string;
  ignore?: "contract"[];
}

export interface CompatIssue {
  member: "upgrade" | "contract";
  address: string;
  path: string;
  message: string;
  gating: boolean;
}

export interface CompatReport {
  name: string;
  status: string;
  from: number | null;
  to: number | null;
  upgrade: { compatible: boolean };
  contract: { compatible: boolean };
  changed: { address: string; task: string | null }[];
  issues: CompatIssue[];
}

export interface CompatResponse {
  compatible: boolean;
  passes: boolean;
  processes: CompatReport[] | null;
  /** Extension, only when not empty: schedules bound to the `from` channel whose input the `to` version refuses. */
  schedule_warnings?: ScheduleWarning[];
}

export interface ProcessNameParams {
  name: string;
}

// ---- channels ----------------------------------------------------------------------

export interface ChannelEntry {
  channel: string;
  name: string;
  version: number;
  actor?: string;
  /** Extension: the actor as people know it (a token's label), present with `actor` (docs/auth.md "Actors"). */
  actor_label?: string;
  updated_at?: string;
}

export interface ListChannelsQuery extends ListQuery<"name" | "updated_at"> {
  name?: string;
}

export interface SetChannelBody {
  name: string;
  channel: string;
  version: number;
}

export interface SetChannelResponse {
  channel: string;
  name: string;
  version: number;
}

export interface DeleteChannelBody {
  name: string;
  channel: string;
}

export interface PromoteChannelBody {
  from: string;
  to: string;
  process?: string;
}

export interface PromoteChannelResponse {
  from: string;
  to: string;
  /** `previous` is 0 when the process was not on `to`. */
  promoted: { name: string; version: number; previous: number }[];
}

export interface StaleChildReference {
  name: string;
  version: number;
  task: string;
  child: string;
  pinned_version: number;
  channel_version: number | null;
}

// ---- instances ---------------------------------------------------------------------

export interface StartInstanceBody {
  process: string;
  version?: number;
  input?: { [key: string]: JsonValue };
  /** Extension: the business key (docs/api.md "Business keys"). */
  key?: string;
}

export interface StartInstanceResponse {
  id: string;
  process: string;
  version: number;
  status: InstanceStatus;
}

export interface InstanceStatusView {
  id: string;
  process: string;
  version: number;
  status: InstanceStatus;
  task: string;
  retry_count: number;
  error_code?: string;
  error_message?: string;
  output?: JsonValue;
  created_at: string;
  updated_at: string;
  /** Extension: when the engine next acts by itself (backoff, delay, external deadline), or null. */
  wake_at: string | null;
  /** Extension: the business key given at start, or null. */
  key: string | null;
}

export interface InstanceRow extends InstanceStatusView {
  parent_id: string | null;
  root_id: string;
  phase: InstancePhase | null;
}

export interface ListInstancesQuery extends ListQuery<"created_at" | "updated_at"> {
  /** One status, several comma-separated, or an array (the client joins it with commas). */
  status?: string | InstanceStatus[];
  phase?: InstancePhase;
  task?: string;
  error_code?: string;
  /** Extension: error codes starting with this text (`http.5` finds http.500…http.599). */
  error_code_prefix?: string;
  process?: string;
  version?: number;
  children?: boolean;
  created_after?: number;
  created_before?: number;
  updated_after?: number;
  updated_before?: number;
  /** Extension: exact business key. */
  key?: string;
  /** Extension: only running instances waiting for flow control (docs/flow-control.md). */
  waiting_for?: FlowWaitReason;
  /** Extension: only instances waiting for flow control on this key. */
  wait_key?: string;
  /** Extension: only this instance's children. */
  parent_id?: string;
}

export type InstanceFilters = Omit<ListInstancesQuery, "sort" | "order" | "limit" | "after" | "before">;

export type CountDimension = "status" | "process" | "error_code" | "phase" | "task";

export interface CountInstancesQuery extends InstanceFilters {
  /** One or two dimensions, comma-separated (default "status"). */
  by?: string | CountDimension[];
}

export interface InstanceCountGroup {
  status?: InstanceStatus;
  process?: string;
  error_code?: string | null;
  phase?: InstancePhase | null;
  task?: string;
  count: number;
}

export interface InstanceCounts {
  by: CountDimension[];
  groups: InstanceCountGroup[];
  total: number;
  truncated: boolean;
}

/** Extension: the body of POST /instances/bulk/{verb} (docs/api.md "Bulk verbs"). */
export interface BulkBody extends Omit<InstanceFilters, "children" | "parent_id"> {
  dry_run?: boolean;
  limit?: number;
  cursor?: string;
}

export interface BulkResult {
  dry_run: boolean;
  counts: { [outcome: string]: number };
  ids: { [outcome: string]: string[] };
  refused: Array<{ id: string; code: string; error: string }>;
  next_cursor: string | null;
}

export interface ExternalizedObject {
  path: string[];
  ref: string;
  size: number;
}

/** Extension: what a running instance waits for (docs/flow-control.md). */
export interface FlowWait {
  reason: FlowWaitReason;
  scope: string;
  key: string;
  limit: number;
  since: string;
}

/** Extension: GET /instances/waits, the waits grouped by scope and key. */
export interface FlowWaitGroup {
  reason: FlowWaitReason;
  scope: string;
  key: string;
  waiting: number;
  oldest_since: string;
}

export interface InstanceDetail {
  id: string;
  process: string;
  version: number;
  status: InstanceStatus;
  task: string;
  retry_count: number;
  created_at: string;
  updated_at: string;
  wake_at: string | null;
  key: string | null;
  /** On failure (sent only when set). */
  error_code?: string;
  error_message?: string;
  /** When finished with output (sent only when set). */
  output?: JsonValue;
  phase: InstancePhase | null;
  parent_id: string | null;
  root_id: string;
  state: {
    _children?: { [taskId: string]: string | string[] | { [key: string]: string } };
    input?: JsonValue;
    outputs?: { [taskId: string]: JsonValue };
    [key: string]: JsonValue | undefined;
  };
  lease_epoch: number;
  task_epoch: number;
  parent_task_epoch: number;
  next_replayable: boolean;
  external_claim_epoch: number;
  objects: ExternalizedObject[];
  /** Extension: sent only while it waits for flow control. */
  waiting_for?: FlowWait;
}

export interface InstanceIdParams {
  id: string;
}

export interface TokenIdParams {
  id: string;
}

export interface LogEntry {
  id: string;
  instance_id: string;
  level: LogLevel;
  event: string;
  message: string;
  task?: string | null;
  actor?: string | null;
  /** Extension: the actor as people know it (a token's label); null with a null actor (docs/auth.md "Actors"). */
  actor_label?: string | null;
  data?: { [key: string]: JsonValue };
  created_at: string;
  /** Extension: the trace id of the instance's trace (docs/tracing.md); absent when none is known. */
  trace_id?: string;
}

export interface ListInstanceLogsQuery extends ListQuery<"created_at"> {
  level?: LogLevel;
  created_after?: number;
  created_before?: number;
  flat?: boolean;
}

export type LifecycleOutcome = "paused" | "pausing" | "resumed" | "cancelled" | "cancelling" | "retried";

export interface LifecycleResponse {
  outcome: LifecycleOutcome;
  status: InstanceStatus;
  instances: number;
}

export interface UpgradeBody {
  from_version: number;
  to_version: number;
}

export interface InstanceMove {
  instance_id: string;
  process: string;
  from_version: number;
  to_version: number;
  task: string;
}

export interface UpgradeResponse {
  upgraded: boolean;
  moves: InstanceMove[] | null;
}

/** Extension: the body of POST /instances/{id}/reset (docs/safe-change.md "Reset"). */
export interface ResetBody {
  to_task: string;
  force?: boolean;
  paused?: boolean;
}

export interface ResetResponse {
  outcome: "reset";
  status: "running" | "paused";
  instances: number;
  task: string;
  task_epoch: number;
  restored_from: { task_epoch: number; entered: boolean };
  dropped: string[];
  children: { cancelled: number; detached: number };
}

// ---- external tasks ----------------------------------------------------------------

export interface ExternalTask {
  token: string;
  process: string;
  version: number;
  task: string;
  external_input: JsonValue;
  result_schema: JsonSchemaValue;
  raises: { [code: string]: JsonSchemaValue | null };
  waiting_since: string;
  deadline: string | null;
  claimed_by: string;
  claim_expires: string;
  /** Extension: the instance waiting on this task. */
  instance_id: string;
  /** Extension: the root of its tree. */
  root_id: string;
  /** Extension: the business key of the tree (its root's `key`); null when none was given. */
  key: string | null;
  /** Extension: the visit; `${instance_id}:${task_epoch}` is stable across claims and retries of it. */
  task_epoch: number;
  /** Extension: 1 plus the on_error retries scheduled in this visit. */
  attempt: number;
  /** Extension: the W3C trace context of the waiting instance, for the handler's span (docs/tracing.md); absent while the server does not trace. */
  traceparent?: string;
}

export interface ListExternalTasksQuery extends ListQuery<"waiting_since"> {
  process?: string;
  version?: number;
  task?: string;
  claimed?: boolean;
  instance_id?: string;
}

export interface WaitingExternalTask {
  instance_id: string;
  root_id: string;
  /** The business key of the tree (its root's `key`); null when none was given. */
  key: string | null;
  process: string;
  version: number;
  task: string;
  status: InstanceStatus;
  external_input: JsonValue;
  waiting_since: string;
  /** The visit (extension): pass it as the signal's `task_epoch` to answer this visit only. */
  task_epoch: number;
  deadline: string | null;
  claimed_by: string | null;
  claim_expires: string | null;
}

/** GET /instances/activity (extension): roots settled per slice of a window, per process. */
export interface InstanceActivity {
  window: "hour" | "day" | "week";
  bucket_ms: number;
  from: string;
  to: string;
  groups: { at: string; process: string; status: "completed" | "failed" | "raised"; count: number }[];
  truncated: boolean;
}

export interface ClaimBody {
  worker_id: string;
  limit?: number;
  lease_ms?: number;
  process?: string;
  task?: string;
  version?: number;
  /** Extension: long-poll up to this many ms when nothing matches (docs/api.md). */
  wait_ms?: number;
}

export interface ClaimResponse {
  items: ExternalTask[];
  renew_before_ms: number;
}

export interface RenewBody {
  worker_id: string;
  tokens: string[];
  lease_ms?: number;
}

export interface RenewResponse {
  renewed: string[];
  lost: string[];
  cancelled: string[];
  renew_before_ms: number;
}

export type ResolveBody = { token: string; result?: JsonValue } | { token: string; error: ErrorOutcome };
/** Extension: many resolves in one call (docs/api.md "Extensions"). */
export interface ResolveBatchBody {
  items: ResolveBody[];
}
/** One item's answer: resolved, or what resolve would have refused it with. */
export interface ResolveBatchItem {
  token: string;
  resolved: boolean;
  code?: "invalid" | "not_found" | "conflict";
  error?: string;
  fields?: { path: string; message: string }[];
}
export interface ResolveBatchResponse {
  items: ResolveBatchItem[];
}
/**
 * `only_if_waiting` and `task_epoch` are extensions: refuse (409) instead of buffering when the
 * task is not waiting now, or (task_epoch) not waiting in that visit.
 */
export type SignalBody = (
  | { instance_id: string; task: string; result?: JsonValue }
  | { instance_id: string; task: string; error: ErrorOutcome }
) & { only_if_waiting?: boolean; task_epoch?: number };

// ---- tokens ------------------------------------------------------------------------

export interface CreateTokenBody {
  label: string;
  perms: Permission[] | null;
  /** Extension (docs/auth.md "Scopes"): omitted = the creator's own scopes; null = every process. */
  scopes?: string[] | null;
  expires_in?: number;
  expires_at?: string;
}

export interface CreatedToken {
  id: string;
  token: string;
  label: string;
  perms: Permission[] | null;
  scopes: string[] | null;
  created_at: string;
  expires_at: string | null;
}

export interface Token {
  id: string;
  label: string;
  perms: Permission[] | null;
  scopes: string[] | null;
  created_at: string;
  last_used_at: string | null;
  expires_at: string | null;
  revoked_at: string | null;
}

/** GET /whoami (extension, docs/auth.md "Who am I"). */
export interface Whoami {
  /** `token:<id>`, a JWT `sub`, or null under `--auth none`. */
  actor: string | null;
  actor_label: string | null;
  perms: Permission[];
  /** null: every process. */
  scopes: string[] | null;
  auth: "none" | "token";
}

// ---- debug -------------------------------------------------------------------------

export interface HealthResponse {
  status: "ok" | "unavailable";
  worker_id: string;
  database: "postgres" | "pglite";
  lease_age_ms: number;
  manual_tick: boolean;
}

export interface LivenessResponse {
  status: "ok";
  worker_id: string;
  uptime_ms: number;
}

export interface ReadinessResponse {
  status: "ready" | "unavailable";
  worker_id: string;
  database: "postgres" | "pglite";
  reason?: "database" | "stopping";
}

// ---- the map -----------------------------------------------------------------------

interface Io<Params, Query, Body, Response> {
  params: Params;
  query: Query;
  body: Body;
  response: Response;
}

type None = undefined;

/** Request parts and response body of every action, by action name. */
export interface ActionTypes {
  putDefinition: Io<None, None, DefinitionInput, PutDefinitionResponse>;
  listDefinitions: Io<None, ListDefinitionsQuery, None, Page<DefinitionSummary>>;
  putDefinitionBatch: Io<None, None, PutDefinitionBatchBody, BatchResult[]>;
  validateDefinitions: Io<None, None, DefinitionInput[], ValidateResult[]>;
  compatDefinitions: Io<None, None, CompatBody, CompatResponse>;
  getDefinition: Io<{ name: string; version: number }, None, None, StoredDefinition>;
  getProcessOpenApi: Io<ProcessNameParams, None, None, { [key: string]: JsonValue }>;
  getProcessDocs: Io<ProcessNameParams, None, None, string>;
  listChannels: Io<None, ListChannelsQuery, None, Page<ChannelEntry>>;
  setChannel: Io<None, None, SetChannelBody, SetChannelResponse>;
  deleteChannel: Io<None, None, DeleteChannelBody, { deleted: boolean }>;
  promoteChannel: Io<None, None, PromoteChannelBody, PromoteChannelResponse>;
  channelStatus: Io<None, None, { channel: string }, { items: StaleChildReference[] }>;
  startInstance: Io<None, None, StartInstanceBody, StartInstanceResponse>;
  listInstances: Io<None, ListInstancesQuery, None, Page<InstanceRow>>;
  countInstances: Io<None, CountInstancesQuery, None, InstanceCounts>;
  listFlowWaits: Io<
    None,
    { process?: string; reason?: FlowWaitReason; limit?: number },
    None,
    { groups: FlowWaitGroup[]; truncated: boolean }
  >;
  instanceActivity: Io<None, { window?: "hour" | "day" | "week"; process?: string }, None, InstanceActivity>;
  bulkPauseInstances: Io<None, None, BulkBody | undefined, BulkResult>;
  bulkResumeInstances: Io<None, None, BulkBody | undefined, BulkResult>;
  bulkCancelInstances: Io<None, None, BulkBody | undefined, BulkResult>;
  bulkRetryInstances: Io<None, None, (BulkBody & { force?: boolean }) | undefined, BulkResult>;
  bulkUpgradeInstances: Io<None, None, BulkBody & { from_version: number; to_version: number }, BulkResult>;
  getInstance: Io<InstanceIdParams, None, None, InstanceStatusView>;
  getInstanceDetail: Io<InstanceIdParams, { resolve?: boolean }, None, InstanceDetail>;
  listInstanceLogs: Io<InstanceIdParams, ListInstanceLogsQuery, None, Page<LogEntry>>;
  /** 204 (nothing to do) resolves to undefined. */
  pauseInstance: Io<InstanceIdParams, None, None, LifecycleResponse | undefined>;
  resumeInstance: Io<InstanceIdParams, None, None, LifecycleResponse | undefined>;
  cancelInstance: Io<InstanceIdParams, None, None, LifecycleResponse | undefined>;
  retryInstance: Io<InstanceIdParams, { force?: boolean }, None, LifecycleResponse>;
  upgradeInstance: Io<InstanceIdParams, None, UpgradeBody, UpgradeResponse>;
  resetInstance: Io<InstanceIdParams, None, ResetBody, ResetResponse>;
  bulkResetInstances: Io<None, None, BulkBody & ResetBody, BulkResult>;
  getObject: Io<{ ref: string }, None, None, JsonValue>;
  listExternalTasks: Io<None, ListExternalTasksQuery, None, Page<WaitingExternalTask>>;
  claimExternalTasks: Io<None, None, ClaimBody, ClaimResponse>;
  renewExternalTasks: Io<None, None, RenewBody, RenewResponse>;
  releaseExternalTask: Io<None, None, { token: string }, { released: boolean }>;
  resolveExternalTask: Io<None, None, ResolveBody, { resolved: boolean }>;
  resolveExternalTaskBatch: Io<None, None, ResolveBatchBody, ResolveBatchResponse>;
  signalExternalTask: Io<None, None, SignalBody, { delivered: boolean; buffered: boolean }>;
  createToken: Io<None, None, CreateTokenBody, CreatedToken>;
  listTokens: Io<None, None, None, { items: Token[] }>;
  revokeToken: Io<TokenIdParams, None, None, { revoked: boolean }>;
  whoami: Io<None, None, None, Whoami>;
  health: Io<None, None, None, HealthResponse>;
  liveness: Io<None, None, None, LivenessResponse>;
  readiness: Io<None, None, None, ReadinessResponse>;
  metrics: Io<None, None, None, string>;
  tick: Io<None, None, { advance_ms?: number } | undefined, { count: number }>;
  putSchedule: Io<{ name: string }, None, ScheduleBody, Schedule & { created: boolean }>;
  listSchedules: Io<None, ListSchedulesQuery, None, Page<Schedule>>;
  getSchedule: Io<{ name: string }, None, None, Schedule>;
  deleteSchedule: Io<{ name: string }, None, None, { deleted: boolean }>;
  pauseSchedule: Io<{ name: string }, None, None, Schedule>;
  resumeSchedule: Io<{ name: string }, None, None, Schedule>;
  triggerSchedule: Io<{ name: string }, None, None, ScheduleFire>;
  backfillSchedule: Io<{ name: string }, None, { from: string; to: string }, { fires: ScheduleFire[] }>;
  putSubscription: Io<{ name: string }, None, SubscriptionBody, Subscription & { created: boolean; secret?: string }>;
  listSubscriptions: Io<
    None,
    { sort?: "name"; order?: "asc" | "desc"; limit?: number; after?: string; before?: string },
    None,
    Page<Subscription>
  >;
  getSubscription: Io<{ name: string }, None, None, Subscription>;
  deleteSubscription: Io<{ name: string }, None, None, { deleted: boolean }>;
  rotateSubscriptionSecret: Io<
    { name: string },
    None,
    { overlap_ms?: number; secret?: string } | undefined,
    { secret: string | null; previous_secret_until: string }
  >;
  resumeSubscription: Io<{ name: string }, None, None, Subscription>;
  listDeliveries: Io<{ name: string }, ListDeliveriesQuery, None, Page<Delivery>>;
  redeliver: Io<{ name: string }, None, RedeliverBody, { queued: number }>;
  putHook: Io<{ name: string }, None, HookBody, Hook & { created: boolean }>;
  listHooks: Io<
    None,
    { sort?: "name"; order?: "asc" | "desc"; limit?: number; after?: string; before?: string },
    None,
    Page<Hook>
  >;
  getHook: Io<{ name: string }, None, None, Hook>;
  deleteHook: Io<{ name: string }, None, None, { deleted: boolean }>;
  receiveHook: Io<{ name: string }, Record<string, string>, unknown, HookReceipt>;
}

export type ActionName = keyof ActionTypes;

type ParamsPart<T> = [T] extends [undefined] ? {} : { params: T };
type QueryPart<T> = [T] extends [undefined] ? {} : { query?: T };
type BodyPart<T> = [T] extends [undefined] ? {} : undefined extends T ? { body?: Exclude<T, undefined> } : { body: T };

/** The request of an action: `params` and (unless optional) `body` are required where the action has them. */
export type ActionRequest<N extends ActionName> = ParamsPart<ActionTypes[N]["params"]> &
  QueryPart<ActionTypes[N]["query"]> &
  BodyPart<ActionTypes[N]["body"]> & {
    signal?: AbortSignal;
    /** Extra request headers the action reads (`Idempotency-Key` of startInstance). */
    headers?: Record<string, string>;
  };

export type ActionResponse<N extends ActionName> = ActionTypes[N]["response"];

/** The actions whose response is a page envelope (what listAll can follow). */
export type ListActionName = { [N in ActionName]: ActionResponse<N> extends Page<unknown> ? N : never }[ActionName];

export type ListItem<N extends ListActionName> = ActionResponse<N> extends Page<infer T> ? T : never;

/** The rest arguments of a call: the request may be left out when nothing in it is required. */
export type RequestArgs<N extends ActionName> =
  {} extends ActionRequest<N> ? [req?: ActionRequest<N>] : [req: ActionRequest<N>];
