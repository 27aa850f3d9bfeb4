export * from "./action-spec.js";
export * from "./client.js";
export * from "./client-errors.js";
export * from "./docs-html.js";
export * from "./error-body.js";
export * from "./list-all.js";
export * from "./openapi.js";
export * from "./pagination.js";
export * from "./process-openapi.js";
export * from "./registry.js";
export * from "./schema.js";
export * from "./scope-rule.js";
export type * from "./types.js";
export {
  ACTIVITY_GROUPS_MAX,
  ACTIVITY_STATUSES,
  ACTIVITY_WINDOWS,
  type ActivityWindow,
} from "./endpoints/activity.js";
export { BULK_ACTIONS, BULK_LIMIT, BULK_VERBS, type BulkVerb } from "./endpoints/bulk.js";
export { CLAIM_LIMIT, CLAIM_MS, CLAIM_WAIT_MS, RESOLVE_BATCH_ITEMS } from "./endpoints/external-tasks.js";
export {
  COUNT_DIMENSIONS,
  COUNT_GROUPS_MAX,
  INSTANCE_KEY_MAX_LENGTH,
  LIFECYCLE_OUTCOMES,
} from "./endpoints/instances.js";
export { FLOW_WAIT_REASONS, type FlowWaitReason, INSTANCE_PHASES, INSTANCE_STATUSES } from "./statuses.js";
export { LOG_LEVELS } from "@baton/log";
export { DELIVERY_STATUSES, EVENT_TYPES } from "./event-types.js";
export { HOOK_VERIFIERS } from "./hook-types.js";
