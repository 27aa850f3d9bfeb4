CREATE TABLE "flow_keys" (
	"scope" text NOT NULL,
	"key" text NOT NULL,
	"served_at" bigint NOT NULL,
	"starts" text DEFAULT '' NOT NULL,
	CONSTRAINT "flow_keys_scope_key_pk" PRIMARY KEY("scope","key")
);
--> statement-breakpoint
CREATE TABLE "flow_slots" (
	"scope" text NOT NULL,
	"key" text NOT NULL,
	"instance_id" text NOT NULL,
	"task_epoch" integer NOT NULL,
	"attempt" integer NOT NULL,
	"granted_at" bigint NOT NULL,
	CONSTRAINT "flow_slots_scope_instance_id_pk" PRIMARY KEY("scope","instance_id")
);
--> statement-breakpoint
CREATE TABLE "flow_waits" (
	"scope" text NOT NULL,
	"key" text NOT NULL,
	"instance_id" text NOT NULL,
	"reason" text NOT NULL,
	"task_epoch" integer NOT NULL,
	"attempt" integer NOT NULL,
	"lim" integer NOT NULL,
	"per_ms" bigint NOT NULL,
	"priority" integer DEFAULT 0 NOT NULL,
	"since" bigint NOT NULL,
	CONSTRAINT "flow_waits_scope_instance_id_pk" PRIMARY KEY("scope","instance_id")
);
--> statement-breakpoint
CREATE INDEX "flow_keys_served_idx" ON "flow_keys" USING btree ("served_at");--> statement-breakpoint
CREATE INDEX "flow_slots_key_idx" ON "flow_slots" USING btree ("scope","key");--> statement-breakpoint
CREATE INDEX "flow_waits_key_idx" ON "flow_waits" USING btree ("scope","key","since");--> statement-breakpoint
CREATE INDEX "flow_waits_instance_idx" ON "flow_waits" USING btree ("instance_id");