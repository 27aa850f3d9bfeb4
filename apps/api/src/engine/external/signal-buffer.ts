import { type Json, parseJson, stringifyJson } from "@baton/expr";
import { sql } from "drizzle-orm";
import { type Db, rowsOf } from "../../storage/db.js";
import type { BufferedSignal } from "../advance/tasks/wait.js";

/** The oldest outcome buffered for (instance, task); the advance that uses it deletes it in its write. */
export async function peekSignal(db: Db, instanceId: string, task: string): Promise<BufferedSignal | undefined> {
  const result = await db.execute(sql`
    SELECT seq, outcome FROM signals WHERE instance_id = ${instanceId} AND task = ${task} ORDER BY seq LIMIT 1`);
  const [row] = rowsOf<{ seq: number | string; outcome: string }>(result);
  return row === undefined ? undefined : { seq: Number(row.seq), outcome: parseJson(row.outcome) as Json };
}

/** Buffers an outcome until the task next arms (FIFO by seq). */
export async function bufferSignal(
  db: Db,
  instanceId: string,
  task: string,
  outcome: Json,
  actor: string | null,
  now: number,
): Promise<void> {
  await db.execute(sql`
    INSERT INTO signals (instance_id, task, outcome, actor, created_at) VALUES (${instanceId}, ${task}, ${stringifyJson(outcome)}, ${actor}, ${now})`);
}

/** How many outcomes are buffered for the instance, over all its tasks. */
export async function bufferedSignals(db: Db, instanceId: string): Promise<number> {
  const result = await db.execute(sql`SELECT count(*)::int AS n FROM signals WHERE instance_id = ${instanceId}`);
  return Number(rowsOf<{ n: number }>(result)[0]?.n ?? 0);
}
