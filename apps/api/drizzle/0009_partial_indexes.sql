-- Partial indexes: most instances have no error_code and no business key, and every write of a
-- row adds an entry to each index whose predicate the new row version meets (docs/performance.md).
DROP INDEX "instances_error_idx";--> statement-breakpoint
DROP INDEX "instances_key_idx";--> statement-breakpoint
CREATE INDEX "instances_error_idx" ON "instances" USING btree ("error_code") WHERE error_code IS NOT NULL;--> statement-breakpoint
CREATE INDEX "instances_key_idx" ON "instances" USING btree ("key") WHERE key IS NOT NULL;