-- Partial indexes (docs/performance.md "Indexes of instances"): settled rows have no wake_at and roots no
-- parent_id, so neither gets an entry in the claim index or the children index.
DROP INDEX "instances_due_idx";--> statement-breakpoint
DROP INDEX "instances_parent_idx";--> statement-breakpoint
CREATE INDEX "instances_due_idx" ON "instances" USING btree ("status","wake_at") WHERE wake_at IS NOT NULL;--> statement-breakpoint
CREATE INDEX "instances_parent_idx" ON "instances" USING btree ("parent_id") WHERE parent_id IS NOT NULL;