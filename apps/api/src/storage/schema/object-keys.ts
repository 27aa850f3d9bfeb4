import { integer, pgTable, text } from "drizzle-orm/pg-core";

/**
 * The one key of this database's object refs (storage/objects.ts refOf): random, written by the
 * first server to start, read by every replica. Row id 1 only.
 */
export const objectKeys = pgTable("object_keys", {
  id: integer("id").primaryKey(),
  key: text("key").notNull(),
});
