import type {
  ExternalizedObject,
  InstanceDetail,
  InstancePhase,
  InstanceRow,
  InstanceStatus,
  InstanceStatusView,
  JsonValue,
  LogEntry,
  LogLevel,
} from "@baton/actions";
import { type Json, parseWrittenJson } from "@baton/expr";
import { iso } from "../format.js";
import type { instances, logs } from "../storage/schema/index.js";
import { redactJson, redactText } from "../engine/secrets.js";

// Row → API shapes of docs/instances.md ("Status view", "Detail view"). Views are pure: outputs and states are
// passed in already parsed (and, where the caller wants it, with objects resolved).

export type InstanceRecord = typeof instances.$inferSelect;
export type LogRecord = typeof logs.$inferSelect;

// The API's view types are the registry's own (packages/actions), so the server and the typed
// client agree on every field. The database keeps statuses, phases and levels as text; the
// casts below are where a row becomes a view.

/** The stored output (with placeholders), or undefined when the instance has none. */
export function storedOutput(row: Pick<InstanceRecord, "output">): Json | undefined {
  return row.output === null ? undefined : parseWrittenJson(row.output);
}

/** `output` is the row's output as the caller wants it shown (resolved or not); omitted when undefined. */
export function statusView(row: InstanceRecord, output: Json | undefined = storedOutput(row)): InstanceStatusView {
  return {
    id: row.id,
    process: row.process,
    version: row.version,
    status: row.status as InstanceStatus,
    task: row.task,
    retry_count: row.retryCount,
    ...(row.errorCode !== null ? { error_code: row.errorCode } : {}),
    ...(row.errorMessage !== null ? { error_message: row.errorMessage } : {}),
    ...(output !== undefined ? { output } : {}),
    created_at: iso(row.createdAt),
    updated_at: iso(row.updatedAt),
    // Only a live row is woken by time; a settled or paused row's leftover wake_at means nothing.
    wake_at: row.wakeAt !== null && (row.status === "running" || row.status === "failing") ? iso(row.wakeAt) : null,
    key: row.key,
  };
}

export function listRow(row: InstanceRecord, output?: Json): InstanceRow {
  return {
    ...statusView(row, output),
    parent_id: row.parentId,
    root_id: row.rootId,
    phase: row.phase as InstancePhase | null,
  };
}

export function detailView(
  row: InstanceRecord,
  shown: { state: Json; output: Json | undefined; objects: ExternalizedObject[] },
): InstanceDetail {
  return {
    ...statusView(row, shown.output),
    parent_id: row.parentId,
    root_id: row.rootId,
    phase: row.phase as InstancePhase | null,
    state: shown.state as InstanceDetail["state"],
    lease_epoch: row.leaseEpoch,
    task_epoch: row.taskEpoch,
    parent_task_epoch: row.parentTaskEpoch,
    next_replayable: row.nextReplayable,
    external_claim_epoch: row.externalClaimEpoch,
    objects: shown.objects,
  };
}

export function logView(row: LogRecord): LogEntry {
  return {
    id: row.id,
    instance_id: row.instanceId,
    level: row.level as LogLevel,
    event: row.event,
    message: row.message,
    task: row.task,
    actor: row.actor,
    ...(row.data !== null ? { data: parseWrittenJson(row.data) as { [key: string]: JsonValue } } : {}),
    created_at: iso(row.createdAt),
  };
}

/**
 * `view` with secrets redacted where instance data is shown (error_message, output, state).
 * The stored row keeps the real values; only what the API shows is redacted.
 */
export function redactView<T extends InstanceStatusView & { state?: unknown }>(view: T, secrets: readonly string[]): T {
  if (secrets.length === 0) return view;
  return {
    ...view,
    ...(view.error_message !== undefined ? { error_message: redactText(view.error_message, secrets) } : {}),
    ...(view.output !== undefined ? { output: redactJson(view.output, secrets) } : {}),
    ...(view.state !== undefined ? { state: redactJson(view.state as Json, secrets) } : {}),
  };
}

/** `view` with secrets redacted in its message and data (a second line of defence for log rows written by any path). */
export function redactLogView(view: LogEntry, secrets: readonly string[]): LogEntry {
  if (secrets.length === 0) return view;
  return {
    ...view,
    message: redactText(view.message, secrets),
    ...(view.data !== undefined ? { data: redactJson(view.data, secrets) } : {}),
  };
}
