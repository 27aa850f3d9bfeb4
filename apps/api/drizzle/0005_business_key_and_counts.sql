ALTER TABLE "instances" ADD COLUMN "key" text;--> statement-breakpoint
CREATE INDEX "instances_key_idx" ON "instances" USING btree ("key");--> statement-breakpoint
CREATE INDEX "instances_counts_idx" ON "instances" USING btree ("status","process","phase","error_code","parent_id");