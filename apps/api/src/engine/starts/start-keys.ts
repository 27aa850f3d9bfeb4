import { eq, sql } from "drizzle-orm";
import { conflict } from "../../refusal.js";
import { type Db, positional, rowsOf } from "../../storage/db.js";
import { instances } from "../../storage/schema/index.js";
import type { InstanceStatus } from "../statuses.js";

// Idempotent starts (docs/instances.md, "Idempotent starts"): a start's key, the start a live
// key names, and the one upsert that takes a key.

export interface StartAnswer {
  id: string;
  process: string;
  version: number;
  status: InstanceStatus;
  /** An Idempotency-Key retry: the instance an earlier request started, nothing new started. */
  replayed: boolean;
}

/** How long an Idempotency-Key names its start; the engine prunes older rows. */
export const START_KEY_RETENTION_MS = 24 * 60 * 60 * 1000;

export interface StartKey {
  scope: string;
  key: string;
  hash: string;
}

/** The start a live key names: its instance as it stands now, or 409 when the body differs. */
export async function earlierStart(db: Db, key: StartKey, now: number): Promise<StartAnswer | undefined> {
  const [row] = rowsOf<{ instance_id: string; request_hash: string }>(
    await db.execute(sql`
      SELECT instance_id, request_hash FROM start_requests
      WHERE scope = ${key.scope} AND key = ${key.key} AND created_at > ${now - START_KEY_RETENTION_MS}`),
  );
  if (row === undefined) return undefined;
  if (row.request_hash !== key.hash)
    throw conflict(
      `Idempotency-Key "${key.key}" already started instance ${row.instance_id} with a different request (process, version or input); use a new key for a new start`,
    );
  const [instance] = await db
    .select({ id: instances.id, process: instances.process, version: instances.version, status: instances.status })
    .from(instances)
    .where(eq(instances.id, row.instance_id));
  if (instance === undefined) throw new Error(`Idempotency-Key "${key.key}" names a missing instance`);
  return { ...instance, status: instance.status as InstanceStatus, replayed: true };
}

/**
 * The one statement that takes a start's key: `rows` yields (scope, key, request_hash,
 * instance_id, created_at); an existing row is taken over only when it was created at or before
 * `expiredAtOrBefore` (both SQL expressions of the caller's statement). Returns instance_id of
 * a key taken, no row when another start holds it live.
 */
export function startKeyUpsert(rows: string, expiredAtOrBefore: string): string {
  return `
  INSERT INTO start_requests (scope, key, request_hash, instance_id, created_at)
  ${rows}
  ON CONFLICT (scope, key) DO UPDATE
    SET request_hash = excluded.request_hash, instance_id = excluded.instance_id, created_at = excluded.created_at
    WHERE start_requests.created_at <= ${expiredAtOrBefore}
  RETURNING instance_id`;
}

const TAKE_KEY = startKeyUpsert("VALUES ($1, $2, $3, $4, $5::bigint)", "$6::bigint");

/**
 * Takes the key for the instance being started, in the start's transaction: false when another
 * request holds it live (it committed first, or commits while this one waits on the key's row).
 * An expired row is taken over.
 */
export async function claimStartKey(tx: Db, key: StartKey, instanceId: string, now: number): Promise<boolean> {
  const taken = await tx.execute(
    positional(TAKE_KEY, [key.scope, key.key, key.hash, instanceId, now, now - START_KEY_RETENTION_MS]),
  );
  return rowsOf(taken).length > 0;
}
