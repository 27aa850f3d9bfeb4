CREATE TABLE "channels" (
	"name" text NOT NULL,
	"channel" text NOT NULL,
	"version" integer NOT NULL,
	"actor" text,
	"updated_at" bigint NOT NULL,
	CONSTRAINT "channels_channel_name_pk" PRIMARY KEY("channel","name")
);
--> statement-breakpoint
CREATE TABLE "definition_pins" (
	"name" text NOT NULL,
	"version" integer NOT NULL,
	"task" text NOT NULL,
	"child" text NOT NULL,
	"child_version" integer NOT NULL,
	CONSTRAINT "definition_pins_name_version_task_child_pk" PRIMARY KEY("name","version","task","child")
);
--> statement-breakpoint
CREATE TABLE "definitions" (
	"name" text NOT NULL,
	"version" integer NOT NULL,
	"definition" text NOT NULL,
	"hash" text NOT NULL,
	"raises" text NOT NULL,
	"actor" text,
	"created_at" bigint NOT NULL,
	CONSTRAINT "definitions_name_version_pk" PRIMARY KEY("name","version")
);
--> statement-breakpoint
CREATE TABLE "instances" (
	"id" text PRIMARY KEY NOT NULL,
	"root_id" text NOT NULL,
	"parent_id" text,
	"spawn_task" text,
	"spawn_key" text,
	"parent_task_epoch" integer DEFAULT 0 NOT NULL,
	"process" text NOT NULL,
	"version" integer NOT NULL,
	"status" text NOT NULL,
	"phase" text,
	"task" text NOT NULL,
	"state" text NOT NULL,
	"retry_count" integer DEFAULT 0 NOT NULL,
	"error_code" text,
	"error_message" text,
	"output" text,
	"wake_at" bigint,
	"lease_owner" text,
	"lease_expires_at" bigint,
	"previous_owner" text,
	"lease_epoch" integer DEFAULT 0 NOT NULL,
	"task_epoch" integer DEFAULT 0 NOT NULL,
	"external_claim_epoch" integer DEFAULT 0 NOT NULL,
	"next_replayable" boolean DEFAULT true NOT NULL,
	"requested" text,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "logs" (
	"id" text PRIMARY KEY NOT NULL,
	"instance_id" text NOT NULL,
	"root_id" text NOT NULL,
	"level" text NOT NULL,
	"event" text NOT NULL,
	"message" text NOT NULL,
	"task" text,
	"actor" text,
	"data" text,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "objects" (
	"ref" text PRIMARY KEY NOT NULL,
	"value" text NOT NULL,
	"size" integer NOT NULL,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "tokens" (
	"id" text PRIMARY KEY NOT NULL,
	"label" text NOT NULL,
	"perms" text,
	"secret_hash" text NOT NULL,
	"actor" text,
	"created_at" bigint NOT NULL,
	"last_used_at" bigint,
	"expires_at" bigint,
	"revoked_at" bigint,
	CONSTRAINT "tokens_secret_hash_unique" UNIQUE("secret_hash")
);
--> statement-breakpoint
CREATE INDEX "channels_name_idx" ON "channels" USING btree ("name");--> statement-breakpoint
CREATE INDEX "definitions_created_idx" ON "definitions" USING btree ("created_at","name","version");--> statement-breakpoint
CREATE INDEX "instances_due_idx" ON "instances" USING btree ("status","wake_at");--> statement-breakpoint
CREATE INDEX "instances_root_idx" ON "instances" USING btree ("root_id");--> statement-breakpoint
CREATE INDEX "instances_parent_idx" ON "instances" USING btree ("parent_id");--> statement-breakpoint
CREATE INDEX "instances_created_idx" ON "instances" USING btree ("created_at","id");--> statement-breakpoint
CREATE INDEX "instances_updated_idx" ON "instances" USING btree ("updated_at","id");--> statement-breakpoint
CREATE INDEX "instances_process_idx" ON "instances" USING btree ("process","version");--> statement-breakpoint
CREATE INDEX "instances_error_idx" ON "instances" USING btree ("error_code");--> statement-breakpoint
CREATE INDEX "logs_root_idx" ON "logs" USING btree ("root_id","created_at","id");--> statement-breakpoint
CREATE INDEX "logs_instance_idx" ON "logs" USING btree ("instance_id","created_at","id");