-- Lists and counts that stay flat as history grows (docs/performance.md "Reads at ten million instances").
-- The list indexes lead with each filter in the default order (created_at, id) and carry parent_id, so
-- "roots only" is decided in the index. IF NOT EXISTS: on a large table, create them CONCURRENTLY
-- under these names before upgrading (docs/deploy.md "Upgrading Baton") and this migration skips them.
CREATE TABLE "instance_count_deltas" (
	"status" text NOT NULL,
	"process" text NOT NULL,
	"phase" text NOT NULL,
	"error_code" text NOT NULL,
	"root" boolean NOT NULL,
	"n" integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE "instance_counts" (
	"status" text NOT NULL,
	"process" text NOT NULL,
	"phase" text NOT NULL,
	"error_code" text NOT NULL,
	"root" boolean NOT NULL,
	"n" bigint NOT NULL,
	CONSTRAINT "instance_counts_status_process_phase_error_code_root_pk" PRIMARY KEY("status","process","phase","error_code","root")
);
--> statement-breakpoint
DROP INDEX IF EXISTS "instances_parent_idx";--> statement-breakpoint
DROP INDEX IF EXISTS "instances_created_idx";--> statement-breakpoint
DROP INDEX IF EXISTS "instances_updated_idx";--> statement-breakpoint
DROP INDEX IF EXISTS "instances_process_idx";--> statement-breakpoint
DROP INDEX IF EXISTS "instances_error_idx";--> statement-breakpoint
DROP INDEX IF EXISTS "instances_counts_idx";--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "instances_parent_created_idx" ON "instances" USING btree ("parent_id","created_at","id") WHERE parent_id IS NOT NULL;--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "instances_created_list_idx" ON "instances" USING btree ("created_at","id","parent_id");--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "instances_updated_list_idx" ON "instances" USING btree ("updated_at","id","parent_id");--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "instances_process_created_idx" ON "instances" USING btree ("process","created_at","id","parent_id");--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "instances_error_created_idx" ON "instances" USING btree ("error_code","created_at","id","parent_id") WHERE error_code IS NOT NULL;--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "instances_status_created_idx" ON "instances" USING btree ("status","created_at","id","parent_id","process","phase","error_code");--> statement-breakpoint
-- Counters: every insert, delete and counted change of an instance appends a delta row; the pump's
-- rollup chore folds them into instance_counts. A counted change moves status, process, phase,
-- error_code or whether the row is a root (parent_id never changes after insert, but it is counted).
CREATE FUNCTION "baton_instance_count_delta"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' THEN
    INSERT INTO "instance_count_deltas" VALUES
      (OLD."status", OLD."process", coalesce(OLD."phase", ''), coalesce(OLD."error_code", ''), OLD."parent_id" IS NULL, -1),
      (NEW."status", NEW."process", coalesce(NEW."phase", ''), coalesce(NEW."error_code", ''), NEW."parent_id" IS NULL, 1);
  ELSIF TG_OP = 'INSERT' THEN
    INSERT INTO "instance_count_deltas" VALUES
      (NEW."status", NEW."process", coalesce(NEW."phase", ''), coalesce(NEW."error_code", ''), NEW."parent_id" IS NULL, 1);
  ELSE
    INSERT INTO "instance_count_deltas" VALUES
      (OLD."status", OLD."process", coalesce(OLD."phase", ''), coalesce(OLD."error_code", ''), OLD."parent_id" IS NULL, -1);
  END IF;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER "instances_count_insert_delete" AFTER INSERT OR DELETE ON "instances"
  FOR EACH ROW EXECUTE FUNCTION "baton_instance_count_delta"();--> statement-breakpoint
CREATE TRIGGER "instances_count_update" AFTER UPDATE ON "instances" FOR EACH ROW
  WHEN ((OLD."status", OLD."process", OLD."phase", OLD."error_code", OLD."parent_id" IS NULL)
    IS DISTINCT FROM (NEW."status", NEW."process", NEW."phase", NEW."error_code", NEW."parent_id" IS NULL))
  EXECUTE FUNCTION "baton_instance_count_delta"();--> statement-breakpoint
-- The triggers exist and hold their lock on instances before the rows are counted, in the
-- migration's one transaction: no write lands between the count and the first delta.
INSERT INTO "instance_counts"
SELECT "status", "process", coalesce("phase", ''), coalesce("error_code", ''), "parent_id" IS NULL, count(*)
FROM "instances" GROUP BY 1, 2, 3, 4, 5;