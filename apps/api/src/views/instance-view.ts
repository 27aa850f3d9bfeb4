import { type Json, parseJson } from "@baton/expr";
import { iso } from "../format.js";
import type { instances, logs } from "../storage/schema/index.js";
import { redactJson, redactText } from "../engine/secrets.js";

// Row → API shapes of docs/instances.md ("Status view", "Detail view"). Views are pure: outputs and states are
// passed in already parsed (and, where the caller wants it, with objects resolved).

export type InstanceRow = typeof instances.$inferSelect;
export type LogRow = typeof logs.$inferSelect;

export interface StatusView {
  id: string;
  process: string;
  version: number;
  status: string;
  task: string;
  retry_count: number;
  error_code?: string;
  error_message?: string;
  output?: Json;
  created_at: string;
  updated_at: string;
  /** The business key (docs/api.md "Business keys"), null when none. */
  key: string | null;
}

export interface InstanceListRow extends StatusView {
  parent_id: string | null;
  root_id: string;
  phase: string | null;
}

export interface ObjectListing {
  path: string[];
  ref: string;
  size: number;
}

export interface DetailView extends StatusView {
  parent_id: string | null;
  root_id: string;
  phase: string | null;
  state: Json;
  lease_epoch: number;
  task_epoch: number;
  parent_task_epoch: number;
  next_replayable: boolean;
  external_claim_epoch: number;
  objects: ObjectListing[];
}

export interface LogView {
  id: string;
  instance_id: string;
  level: string;
  event: string;
  message: string;
  task: string | null;
  actor: string | null;
  data?: Json;
  created_at: string;
}

/** The stored output (with placeholders), or undefined when the instance has none. */
export function storedOutput(row: Pick<InstanceRow, "output">): Json | undefined {
  return row.output === null ? undefined : parseJson(row.output);
}

/** `output` is the row's output as the caller wants it shown (resolved or not); omitted when undefined. */
export function statusView(row: InstanceRow, output: Json | undefined = storedOutput(row)): StatusView {
  return {
    id: row.id,
    process: row.process,
    version: row.version,
    status: row.status,
    task: row.task,
    retry_count: row.retryCount,
    ...(row.errorCode !== null ? { error_code: row.errorCode } : {}),
    ...(row.errorMessage !== null ? { error_message: row.errorMessage } : {}),
    ...(output !== undefined ? { output } : {}),
    created_at: iso(row.createdAt),
    updated_at: iso(row.updatedAt),
    key: row.key,
  };
}

export function listRow(row: InstanceRow, output?: Json): InstanceListRow {
  return { ...statusView(row, output), parent_id: row.parentId, root_id: row.rootId, phase: row.phase };
}

export function detailView(
  row: InstanceRow,
  shown: { state: Json; output: Json | undefined; objects: ObjectListing[] },
): DetailView {
  return {
    ...statusView(row, shown.output),
    parent_id: row.parentId,
    root_id: row.rootId,
    phase: row.phase,
    state: shown.state,
    lease_epoch: row.leaseEpoch,
    task_epoch: row.taskEpoch,
    parent_task_epoch: row.parentTaskEpoch,
    next_replayable: row.nextReplayable,
    external_claim_epoch: row.externalClaimEpoch,
    objects: shown.objects,
  };
}

export function logView(row: LogRow): LogView {
  return {
    id: row.id,
    instance_id: row.instanceId,
    level: row.level,
    event: row.event,
    message: row.message,
    task: row.task,
    actor: row.actor,
    ...(row.data !== null ? { data: parseJson(row.data) } : {}),
    created_at: iso(row.createdAt),
  };
}

/**
 * `view` with secrets redacted where instance data is shown (error_message, output, state).
 * The stored row keeps the real values; only what the API shows is redacted.
 */
export function redactView<T extends StatusView & { state?: Json }>(view: T, secrets: readonly string[]): T {
  if (secrets.length === 0) return view;
  return {
    ...view,
    ...(view.error_message !== undefined ? { error_message: redactText(view.error_message, secrets) } : {}),
    ...(view.output !== undefined ? { output: redactJson(view.output, secrets) } : {}),
    ...(view.state !== undefined ? { state: redactJson(view.state, secrets) } : {}),
  };
}

/** `view` with secrets redacted in its message and data (a second line of defence for log rows written by any path). */
export function redactLogView(view: LogView, secrets: readonly string[]): LogView {
  if (secrets.length === 0) return view;
  return {
    ...view,
    message: redactText(view.message, secrets),
    ...(view.data !== undefined ? { data: redactJson(view.data, secrets) } : {}),
  };
}
