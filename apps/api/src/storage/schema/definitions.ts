import { bigint, index, integer, pgTable, primaryKey, text } from "drizzle-orm/pg-core";

// Timestamps are unix ms from the service clock (clock.ts), never SQL now(): the
// clock can be shifted by /tick advance_ms and every comparison must see the same time.

export const definitions = pgTable(
  "definitions",
  {
    name: text("name").notNull(),
    version: integer("version").notNull(),
    /** Canonical JSON (model.canonicalJson), stored as text so numbers stay exact. */
    definition: text("definition").notNull(),
    hash: text("hash").notNull(),
    /** JSON array of authored codes (model.declaredRaises). */
    raises: text("raises").notNull(),
    actor: text("actor"),
    createdAt: bigint("created_at", { mode: "number" }).notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.name, t.version] }),
    index("definitions_created_idx").on(t.createdAt, t.name, t.version),
  ],
);

export const channels = pgTable(
  "channels",
  {
    name: text("name").notNull(),
    channel: text("channel").notNull(),
    version: integer("version").notNull(),
    actor: text("actor"),
    updatedAt: bigint("updated_at", { mode: "number" }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.channel, t.name] }), index("channels_name_idx").on(t.name)],
);

/** Child versions a parent version was registered against through a channel batch. */
export const definitionPins = pgTable(
  "definition_pins",
  {
    name: text("name").notNull(),
    version: integer("version").notNull(),
    task: text("task").notNull(),
    child: text("child").notNull(),
    childVersion: integer("child_version").notNull(),
  },
  (t) => [primaryKey({ columns: [t.name, t.version, t.task, t.child] })],
);
