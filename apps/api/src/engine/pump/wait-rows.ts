import { stringifyJson } from "@baton/expr";
import { sql } from "drizzle-orm";
import type { Db } from "../../storage/db.js";
import type { AdvanceResult } from "../advance/advance-types.js";

/**
 * The external-task side of landed advances, in the advance's own transaction: a new park
 * (re)creates the instance's claim row (any claim of an earlier visit is gone with it) and
 * consumed signals are deleted. (A park that ended drops its claim row in the advance statement
 * itself, commit.ts `cleared`, so the common end of an external task needs no transaction.)
 *
 * Every arming starts above every claim epoch ever issued for the instance (a re-arm of the
 * same visit, by a retry after a timeout, keeps its task_epoch): a token is bound to its
 * arming by (task_epoch, claim_epoch), so an old one can never match a newer arming's claim
 * (docs/engine.md, "External tasks and delay").
 */
export async function writeWaitChanges(
  tx: Db,
  landed: ReadonlyArray<{ instanceId: string; result: AdvanceResult }>,
): Promise<void> {
  const parks = landed.filter((l) => typeof l.result.externalWait === "object");
  const signals = landed.map((l) => l.result.consumedSignal).filter((seq): seq is number => seq !== undefined);
  if (signals.length > 0)
    await tx.execute(sql`DELETE FROM signals WHERE seq = ANY(${`{${signals.join(",")}}`}::bigint[])`);
  if (parks.length > 0) {
    const rows = parks.map(({ instanceId, result }) => {
      const park = result.externalWait as Exclude<AdvanceResult["externalWait"], "clear" | undefined>;
      return {
        instance_id: instanceId,
        task: park.task,
        task_epoch: park.taskEpoch,
        input: stringifyJson(park.input),
        waiting_since: park.since,
        deadline: park.deadline,
      };
    });
    await tx.execute(sql`
      INSERT INTO external_waits (instance_id, task, task_epoch, input, waiting_since, deadline, claim_epoch, claimed_by, claim_expires_at)
      SELECT x.instance_id, x.task, x.task_epoch, x.input, x.waiting_since, x.deadline,
        COALESCE((SELECT max(c.claim_epoch) + 1 FROM external_claims c WHERE c.instance_id = x.instance_id), 0), NULL, NULL
      FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS x(instance_id text, task text, task_epoch integer, input text, waiting_since bigint, deadline bigint)
      ON CONFLICT (instance_id) DO UPDATE SET task = excluded.task, task_epoch = excluded.task_epoch, input = excluded.input,
        waiting_since = excluded.waiting_since, deadline = excluded.deadline,
        claim_epoch = external_waits.claim_epoch + 1, claimed_by = NULL, claim_expires_at = NULL`);
  }
}
