import type { InstanceStatus, WaitingExternalTask } from "@baton/actions";
// GET /external-tasks (docs/api.md "Waiting external tasks"): the external-task queue, read-only.
import { parseJson } from "@baton/expr";
import { and, eq, gt, inArray, isNull, lte, or, type SQL, sql } from "drizzle-orm";
import { redactJson } from "../engine/secrets.js";
import { iso } from "../format.js";
import type { Db } from "../storage/db.js";
import { sqlTextArray } from "../storage/sql-arrays.js";
import { externalWaits, instances } from "../storage/schema/index.js";
import { serverSecrets } from "./secrets-lookup.js";

export type WaitRow = typeof externalWaits.$inferSelect;

export interface WaitingTaskFilters {
  process?: string;
  version?: number;
  task?: string;
  claimed?: boolean;
  instance_id?: string;
  /**
   * Only tasks of these processes (a scoped caller's, auth/scope.ts scopeFilter; absent or null:
   * all). An external task belongs to the process whose instance waits: the one declaring it.
   */
  processes?: readonly string[] | null;
}

/**
 * The rows of visits waiting now: the wait row of the instance's current task visit (a row
 * left from an earlier visit, whose task_epoch no longer matches, is not a waiting task).
 */
export function waitingTaskFilters(query: WaitingTaskFilters, now: number): SQL | undefined {
  const instanceConditions: SQL[] = [
    sql`i.id = ${externalWaits.instanceId}`,
    sql`i.task_epoch = ${externalWaits.taskEpoch}`,
    sql`i.phase = 'external'`,
    sql`i.status IN ('running', 'pausing', 'paused')`,
  ];
  if (query.process !== undefined) instanceConditions.push(sql`i.process = ${query.process}`);
  if (query.version !== undefined) instanceConditions.push(sql`i.version = ${query.version}`);
  if (query.processes !== undefined && query.processes !== null)
    instanceConditions.push(sql`i.process = ANY(${sqlTextArray(query.processes)})`);
  const where: Array<SQL | undefined> = [
    sql`EXISTS (SELECT 1 FROM instances i WHERE ${sql.join(instanceConditions, sql` AND `)})`,
  ];
  if (query.task !== undefined) where.push(eq(externalWaits.task, query.task));
  if (query.instance_id !== undefined) where.push(eq(externalWaits.instanceId, query.instance_id.toLowerCase()));
  if (query.claimed === true) where.push(gt(externalWaits.claimExpiresAt, now));
  if (query.claimed === false)
    where.push(or(isNull(externalWaits.claimExpiresAt), lte(externalWaits.claimExpiresAt, now)));
  return and(...where);
}

/** A waiting external task as the API shows it (the registry's own type). */
export type WaitingTask = WaitingExternalTask;

/** The API items of a page of wait rows (`now` decides whether a claim is still live). */
export async function waitingTaskItems(
  db: Db,
  now: number,
  env: NodeJS.ProcessEnv,
  waits: WaitRow[],
): Promise<WaitingTask[]> {
  const ids = waits.map((row) => row.instanceId);
  const owners =
    ids.length === 0
      ? []
      : await db
          .select({
            id: instances.id,
            rootId: instances.rootId,
            // A child's key is null: the tree's key is its root's (docs/api.md "Business keys"). The
            // outer columns are named with their table: drizzle writes them unqualified, which
            // inside the subquery would mean r's own.
            key: sql<
              string | null
            >`COALESCE(instances.key, (SELECT r.key FROM instances r WHERE r.id = instances.root_id))`,
            process: instances.process,
            version: instances.version,
            status: instances.status,
          })
          .from(instances)
          .where(inArray(instances.id, ids));
  const byId = new Map(owners.map((owner) => [owner.id, owner]));
  const secrets = await serverSecrets(db, env);
  return waits.map((row) => {
    const owner = byId.get(row.instanceId)!;
    // A lapsed claim is no claim: the task is claimable, whoever held it last.
    const live = row.claimExpiresAt !== null && row.claimExpiresAt > now;
    return {
      instance_id: row.instanceId,
      root_id: owner.rootId,
      key: owner.key,
      process: owner.process,
      version: owner.version,
      task: row.task,
      status: owner.status as InstanceStatus,
      external_input: redactJson(parseJson(row.input), secrets),
      waiting_since: iso(row.waitingSince),
      task_epoch: row.taskEpoch,
      deadline: row.deadline === null ? null : iso(row.deadline),
      claimed_by: live ? row.claimedBy : null,
      claim_expires: live ? iso(row.claimExpiresAt!) : null,
    };
  });
}
