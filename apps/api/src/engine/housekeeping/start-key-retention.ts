import { sql } from "drizzle-orm";
import { type Db, rowsOf } from "../../storage/db.js";
import { START_KEY_RETENTION_MS } from "../starts/start-keys.js";

/** Deletes up to 1,000 start keys past the retention window (START_KEY_RETENTION_MS); returns how many. */
export async function pruneStartKeys(db: Db, now: number): Promise<number> {
  const result = await db.execute(sql`
    DELETE FROM start_requests WHERE (scope, key) IN (
      SELECT scope, key FROM start_requests WHERE created_at <= ${now - START_KEY_RETENTION_MS}
      ORDER BY created_at LIMIT 1000)
    RETURNING key`);
  return rowsOf(result).length;
}
