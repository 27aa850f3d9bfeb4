// POST /instances/{id}/reset (extension, docs/safe-change.md "Reset"): a root goes back to a task
// it entered, or one its definition reaches from one, with the state it had there.
import type { JsonSchema } from "../action-spec.js";
import { arrayOf, bool, int, responseObject, str, strictObject } from "../schema.js";
import { action } from "./define.js";

/** A task id as definitions spell it (@baton/model names.ts TASK_ID). */
export const RESET_TASK: JsonSchema = str(
  "The task to go back to: one the instance entered (its state is the one of its first entry), or one its current version reaches from a task it entered.",
  { pattern: "^[A-Za-z_][A-Za-z0-9_-]{0,63}$" },
);
export const RESET_FORCE: JsonSchema = bool(
  "Reset even though an only_once task entered after the point may run again (as `retry?force=true`).",
);

export const RESET_PAUSED: JsonSchema = bool(
  "Land the root `paused` instead of running it, e.g. to upgrade it before it runs again (a paused root stays paused anyway).",
);

export const RESET_SCHEMA = responseObject(
  {
    outcome: str("Always `reset`.", { enum: ["reset"] }),
    status: str("The root's status after the call: `running`, or `paused` for a paused tree (resume it to go on).", {
      enum: ["running", "paused"],
    }),
    instances: int("Rows changed: the root and the children cancelled.", { minimum: 1 }),
    task: str("The task the root now sits on."),
    task_epoch: int("The root's new visit of that task (a new Idempotency-Key for its fetch).", { minimum: 1 }),
    restored_from: responseObject(
      {
        task_epoch: int("The visit the state comes from.", { minimum: 1 }),
        entered: bool(
          "True: the state of the task's own first entry. False: the task was never entered; the state is the one the visit `task_epoch` of a task leading there left.",
        ),
      },
      ["task_epoch", "entered"],
    ),
    dropped: arrayOf(
      str("A task id."),
      "Outputs the root had that the restored state does not (the audit log keeps them).",
    ),
    children: responseObject(
      {
        cancelled: int("Live children spawned after the point, cancelled with their subtrees.", { minimum: 0 }),
        detached: int("Settled children spawned after the point: kept, but the restored state no longer names them.", {
          minimum: 0,
        }),
      },
      ["cancelled", "detached"],
    ),
  },
  ["outcome", "status", "instances", "task", "task_epoch", "restored_from", "dropped", "children"],
  { title: "ResetResponse" },
);

export const resetActions = [
  action({
    name: "resetInstance",
    method: "post",
    path: "/instances/{id}/reset",
    tag: "instances",
    extension: true,
    summary: "Rerun an instance tree from a task (reset)",
    description:
      "Moves a failed, raised, completed or paused root back to `to_task` with the exact state it had when it first entered it (rebuilt from the visit journal), as a new visit; outputs of later tasks are dropped from the state and stay in the audit log. " +
      "A task it never entered may be named when its current version reaches it from one it did: the state is then the one that task's latest visit left. " +
      "Live children spawned after the point are cancelled (with their trees), settled ones detached; the answer counts both. " +
      "An only_once task entered after the point is refused (409) unless `force=true`. A paused tree stays paused, and `paused: true` lands any root paused (to upgrade it first). One transaction over the locked tree.",
    permissions: ["operate"],
    scope: { by: "instance", param: "id" },
    params: strictObject({ id: str("Root instance id (a child id is refused with 400).", { minLength: 1 }) }, ["id"]),
    body: strictObject({ to_task: RESET_TASK, force: RESET_FORCE, paused: RESET_PAUSED }, ["to_task"]),
    responses: { 200: { description: "Reset (`outcome: reset`).", schema: RESET_SCHEMA } },
    errors: [400, 404, 409, 500],
    errorDescriptions: {
      400: "A child id was given (act on its root), or the body is invalid.",
      404: "No instance with that id, or its version has no such task.",
      409: "The root is not failed, raised, completed or paused (a pausing one is still finishing a task); the task cannot be reached; the state to restore was not recorded; or only_once protection applies without `force=true`.",
    },
    example: {
      request: { params: { id: "019a3c1e-7c2b-7d10-8f00-4b6e2a9d1c55" }, body: { to_task: "reserve" } },
      response: {
        outcome: "reset",
        status: "running",
        instances: 1,
        task: "reserve",
        task_epoch: 5,
        restored_from: { task_epoch: 2, entered: true },
        dropped: ["reserve", "charge"],
        children: { cancelled: 0, detached: 0 },
      },
    },
  }),
];
