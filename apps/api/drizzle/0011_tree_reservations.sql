-- Exact tree sizes with reservations (docs/limits.md#trees). tree_size, on a root row only: the tree's
-- rows plus the children reserved by spawning advances in flight, never less than what the tree will hold.
-- reserved_children/reserved_epoch, on a spawner: what its advance under that lease epoch reserved and
-- has not inserted yet.
ALTER TABLE "instances" ADD COLUMN "tree_size" integer;--> statement-breakpoint
ALTER TABLE "instances" ADD COLUMN "reserved_children" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "instances" ADD COLUMN "reserved_epoch" integer;--> statement-breakpoint
-- Existing roots start at their row count: no reservation exists yet.
UPDATE "instances" AS r SET "tree_size" = t.n
FROM (SELECT "root_id", count(*)::int AS n FROM "instances" GROUP BY "root_id") AS t
WHERE r."id" = t."root_id" AND r."parent_id" IS NULL;
