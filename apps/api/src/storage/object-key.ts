import { createHash, createHmac, randomBytes } from "node:crypto";
import { eq } from "drizzle-orm";
import type { Db } from "./db.js";
import { objectKeys } from "./schema/index.js";

// The key of object refs (docs/security.md "Object refs"): a ref is the HMAC-SHA256 of the
// object's JSON text under this database's key, so nobody without the key can compute the ref
// of a guessed value and ask GET /objects whether it exists. One key per database, shared by
// its replicas, so an unchanged value keeps its ref whichever replica stores it. The server
// loads it at start (useObjectKey), before its engine stores any object; refs stored under no
// key or an earlier scheme stay valid: a ref is only ever looked up, never recomputed.

let current: Buffer | undefined;

/** Reads this database's key, writing a fresh random one first if it has none, and refs use it from now on. */
export async function useObjectKey(db: Db): Promise<void> {
  await db
    .insert(objectKeys)
    .values({ id: 1, key: randomBytes(32).toString("hex") })
    .onConflictDoNothing();
  const [row] = await db.select({ key: objectKeys.key }).from(objectKeys).where(eq(objectKeys.id, 1));
  current = Buffer.from(row!.key, "hex");
}

/** The ref of an object's JSON text: keyed when useObjectKey ran (the server), sha256 otherwise (in-process tests). */
export function keyedRef(jsonText: string): string {
  return current === undefined
    ? createHash("sha256").update(jsonText).digest("hex")
    : createHmac("sha256", current).update(jsonText).digest("hex");
}
