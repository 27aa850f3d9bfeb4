import { sql } from "drizzle-orm";
import { type Db, rowsOf } from "../../storage/db.js";

/**
 * How long a claim token is remembered after its claim stopped being current (the visit moved
 * on, or a later claim superseded it). Within it a late resolve/renew is told precisely why it
 * is refused (409); after it the token is unknown (404). Tokens of current claims are never
 * pruned, however old: a worker may renew one claim for days.
 */
export const CLAIM_TOKEN_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;

/** Rows deleted per statement, so one pass never holds many row locks or a long transaction. */
const PRUNE_BATCH = 1_000;

/**
 * Deletes up to PRUNE_BATCH external_claims rows created before `now - retentionMs` whose claim
 * is no longer the current one of a waiting visit. Replicas may run it at once: rows another
 * pass holds are skipped, not waited for. Returns how many rows were deleted.
 */
export async function pruneExternalClaims(
  db: Db,
  now: number,
  retentionMs = CLAIM_TOKEN_RETENTION_MS,
): Promise<number> {
  const result = await db.execute(sql`
    DELETE FROM external_claims WHERE token_hash IN (
      SELECT c.token_hash FROM external_claims c
      WHERE c.created_at < ${now - retentionMs}
        AND NOT EXISTS (
          SELECT 1 FROM external_waits w
          WHERE w.instance_id = c.instance_id AND w.task_epoch = c.task_epoch AND w.claim_epoch = c.claim_epoch)
      ORDER BY c.created_at
      LIMIT ${PRUNE_BATCH}
      FOR UPDATE OF c SKIP LOCKED)
    RETURNING token_hash`);
  return rowsOf(result).length;
}
