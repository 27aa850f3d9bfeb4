// Every endpoint of the product, once. Order matters only for readability (the OpenAPI
// document and the docs list them in this order).

import type { ActionSpec } from "./action-spec.js";
import { activityActions } from "./endpoints/activity.js";
import { bulkActions } from "./endpoints/bulk.js";
import { channelActions } from "./endpoints/channels.js";
import { debugActions } from "./endpoints/debug.js";
import { definitionActions } from "./endpoints/definitions.js";
import { externalTaskActions } from "./endpoints/external-tasks.js";
import { instanceActions } from "./endpoints/instances.js";
import { resetActions } from "./endpoints/reset.js";
import { scheduleActions } from "./endpoints/schedules.js";
import { subscriptionActions } from "./endpoints/subscriptions.js";
import { hookActions } from "./endpoints/hooks.js";
import { tokenActions } from "./endpoints/tokens.js";
import type { ActionName } from "./types.js";

export type { ActionName } from "./types.js";

const entries = [
  ...definitionActions,
  ...channelActions,
  // Before instanceActions: /instances/bulk/pause must win over /instances/{id}/pause.
  ...bulkActions,
  // Before instanceActions too: /instances/activity is not an instance id.
  ...activityActions,
  ...instanceActions,
  ...resetActions,
  ...externalTaskActions,
  ...scheduleActions,
  ...subscriptionActions,
  ...hookActions,
  ...tokenActions,
  ...debugActions,
];

// Compile-time: every typed ActionName has an entry (a missing one makes this line fail to type-check).
type Declared = (typeof entries)[number]["name"];
const everyNameDeclared: [Exclude<ActionName, Declared>] extends [never] ? true : Exclude<ActionName, Declared> = true;
void everyNameDeclared;

export const registry: readonly ActionSpec[] = entries;

const byName = new Map<string, ActionSpec>(entries.map((entry) => [entry.name, entry]));

/** The registry entry of `name`; throws naming the known actions when there is none. */
export function findAction(name: ActionName): ActionSpec;
export function findAction(name: string): ActionSpec;
export function findAction(name: string): ActionSpec {
  const found = byName.get(name);
  if (!found) throw new Error(`unknown action "${name}"; known actions: ${[...byName.keys()].join(", ")}`);
  return found;
}

/** The tags of the registry, with a description each, in display order. */
export const TAGS: readonly { name: string; description: string }[] = [
  { name: "definitions", description: "Register, list, validate and compare process definitions." },
  { name: "channels", description: "Named pointers from a process to a version; promote them between environments." },
  {
    name: "instances",
    description:
      "Start, inspect and control process instances (lifecycle verbs act on whole trees through the root id).",
  },
  {
    name: "external-tasks",
    description:
      "Work queue for external workers: claim under a lease, renew, release, resolve; or signal by instance and task.",
  },
  {
    name: "schedules",
    description: "Extension: start processes on a calendar (cron, interval), exactly once per fire time.",
  },
  {
    name: "subscriptions",
    description: "Extension: signed webhooks reporting instance, external-task and schedule events, at least once.",
  },
  {
    name: "hooks",
    description:
      "Extension: signed inbound webhooks (Standard Webhooks, GitHub, Stripe, a shared header) that start or signal work.",
  },
  { name: "tokens", description: "API tokens for machines (admin only)." },
  { name: "debug", description: "Readiness probe and the manual engine tick for tests." },
];
