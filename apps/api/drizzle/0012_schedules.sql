CREATE TABLE "schedule_fires" (
	"id" text PRIMARY KEY NOT NULL,
	"schedule" text NOT NULL,
	"fire_at" bigint NOT NULL,
	"side" text NOT NULL,
	"origin" text NOT NULL,
	"outcome" text NOT NULL,
	"instance_id" text,
	"reason" text,
	"due_at" bigint NOT NULL,
	"fired_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "schedules" (
	"name" text PRIMARY KEY NOT NULL,
	"process" text NOT NULL,
	"channel" text,
	"version" integer,
	"spec" text NOT NULL,
	"paused" boolean DEFAULT false NOT NULL,
	"next_fire_at" bigint,
	"next_due_at" bigint,
	"buffered_fire_at" bigint,
	"last_instance_id" text,
	"actor" text,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX "schedule_fires_once_idx" ON "schedule_fires" USING btree ("schedule","side","fire_at");--> statement-breakpoint
CREATE INDEX "schedule_fires_recent_idx" ON "schedule_fires" USING btree ("schedule","id");--> statement-breakpoint
CREATE INDEX "schedules_due_idx" ON "schedules" USING btree ("next_due_at") WHERE NOT "schedules"."paused";--> statement-breakpoint
CREATE INDEX "schedules_buffered_idx" ON "schedules" USING btree ("name") WHERE "schedules"."buffered_fire_at" IS NOT NULL;--> statement-breakpoint
CREATE INDEX "schedules_channel_idx" ON "schedules" USING btree ("process","channel");