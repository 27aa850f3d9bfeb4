CREATE TABLE "external_claims" (
	"token_hash" text PRIMARY KEY NOT NULL,
	"instance_id" text NOT NULL,
	"task_epoch" integer NOT NULL,
	"claim_epoch" integer NOT NULL,
	"worker_id" text NOT NULL,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "external_waits" (
	"instance_id" text PRIMARY KEY NOT NULL,
	"task" text NOT NULL,
	"task_epoch" integer NOT NULL,
	"input" text NOT NULL,
	"waiting_since" bigint NOT NULL,
	"deadline" bigint,
	"claim_epoch" integer DEFAULT 0 NOT NULL,
	"claimed_by" text,
	"claim_expires_at" bigint
);
--> statement-breakpoint
CREATE TABLE "signals" (
	"seq" bigserial PRIMARY KEY NOT NULL,
	"instance_id" text NOT NULL,
	"task" text NOT NULL,
	"outcome" text NOT NULL,
	"actor" text,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE INDEX "external_claims_instance_idx" ON "external_claims" USING btree ("instance_id");--> statement-breakpoint
CREATE INDEX "external_waits_queue_idx" ON "external_waits" USING btree ("waiting_since","instance_id");--> statement-breakpoint
CREATE INDEX "signals_instance_task_idx" ON "signals" USING btree ("instance_id","task","seq");