import { type Json, parseJson, stringifyJson } from "@baton/expr";
import { sql } from "drizzle-orm";
import type { Clock } from "../../clock.js";
import { type Db, rowsOf } from "../../storage/db.js";
import type { AdvanceResult } from "../advance/advance-types.js";
import { deliver, type Outcome } from "../external/delivery.js";

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
 *
 * Answers the instances whose new park was answered at once by a signal buffered while the
 * advance ran (deliverLateSignals): their lease, if the write kept one, is gone.
 */
export async function writeWaitChanges(
  tx: Db,
  clock: Clock,
  landed: ReadonlyArray<{ instanceId: string; rootId: string; result: AdvanceResult }>,
): Promise<Set<string>> {
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
  return parks.length === 0 ? new Set() : deliverLateSignals(tx, clock, parks);
}

// A signal for a task that is not parked is buffered under the instance's row lock
// (external/signal.ts), and the advance that arms the task reads the buffer before it parks.
// A signal buffered between that read and this write would wait for a later visit that may
// never come. This write's UPDATE took the row lock after any such signal committed (it waited
// for the signal's lock), and under READ COMMITTED this later statement sees its row: so the
// oldest buffered signal for a task parked here is delivered now, as if it had come a moment
// later. A signal arriving after this write sees the task parked and delivers by itself.
async function deliverLateSignals(
  tx: Db,
  clock: Clock,
  parks: ReadonlyArray<{ instanceId: string; rootId: string; result: AdvanceResult }>,
): Promise<Set<string>> {
  const keys = parks.map(({ instanceId, result }) => {
    const park = result.externalWait as Exclude<AdvanceResult["externalWait"], "clear" | undefined>;
    return { instance_id: instanceId, task: park.task, task_epoch: park.taskEpoch };
  });
  const late = rowsOf<{
    seq: number | string;
    instance_id: string;
    task: string;
    task_epoch: number;
    outcome: string;
    actor: string | null;
  }>(
    await tx.execute(sql`
      SELECT DISTINCT ON (s.instance_id) s.seq, s.instance_id, s.task, p.task_epoch, s.outcome, s.actor
      FROM jsonb_to_recordset(${JSON.stringify(keys)}::jsonb) AS p(instance_id text, task text, task_epoch integer)
      JOIN instances i ON i.id = p.instance_id AND i.task = p.task AND i.task_epoch = p.task_epoch
        AND i.phase = 'external' AND i.status IN ('running', 'pausing', 'paused')
      JOIN signals s ON s.instance_id = p.instance_id AND s.task = p.task
      ORDER BY s.instance_id, s.seq`),
  );
  const rootOf = new Map(parks.map((p) => [p.instanceId, p.rootId]));
  for (const signal of late) {
    await tx.execute(sql`DELETE FROM signals WHERE seq = ${Number(signal.seq)}`);
    const target = {
      id: signal.instance_id,
      rootId: rootOf.get(signal.instance_id) as string,
      task: signal.task,
      taskEpoch: Number(signal.task_epoch),
    };
    await deliver(tx, clock, target, parseJson(signal.outcome) as Json as Outcome, signal.actor, "signal");
  }
  return new Set(late.map((l) => l.instance_id));
}
