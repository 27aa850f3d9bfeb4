CREATE TABLE "start_requests" (
	"scope" text NOT NULL,
	"key" text NOT NULL,
	"request_hash" text NOT NULL,
	"instance_id" text NOT NULL,
	"created_at" bigint NOT NULL,
	CONSTRAINT "start_requests_scope_key_pk" PRIMARY KEY("scope","key")
);
--> statement-breakpoint
CREATE INDEX "start_requests_created_idx" ON "start_requests" USING btree ("created_at");