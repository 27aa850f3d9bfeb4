CREATE TABLE "hook_deliveries" (
	"hook" text NOT NULL,
	"delivery_id" text NOT NULL,
	"outcome" text NOT NULL,
	"instance_id" text,
	"received_at" bigint NOT NULL,
	CONSTRAINT "hook_deliveries_hook_delivery_id_pk" PRIMARY KEY("hook","delivery_id")
);
--> statement-breakpoint
CREATE TABLE "hooks" (
	"name" text PRIMARY KEY NOT NULL,
	"verifier" text NOT NULL,
	"secret" text NOT NULL,
	"spec" text NOT NULL,
	"actor" text,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE INDEX "hook_deliveries_recent_idx" ON "hook_deliveries" USING btree ("hook","received_at");