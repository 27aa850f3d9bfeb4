CREATE TABLE "event_deliveries" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"subscription" text NOT NULL,
	"event_seq" bigint NOT NULL,
	"order_key" text NOT NULL,
	"status" text NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_at" bigint NOT NULL,
	"lease_owner" text,
	"lease_until" bigint,
	"lease_epoch" integer DEFAULT 0 NOT NULL,
	"last_status" integer,
	"last_error" text,
	"latency_ms" integer,
	"created_at" bigint NOT NULL,
	"delivered_at" bigint
);
--> statement-breakpoint
CREATE TABLE "events" (
	"seq" bigserial PRIMARY KEY NOT NULL,
	"type" text NOT NULL,
	"order_key" text NOT NULL,
	"process" text,
	"data" text NOT NULL,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "subscriptions" (
	"name" text PRIMARY KEY NOT NULL,
	"url" text NOT NULL,
	"events" text[] NOT NULL,
	"process" text,
	"channel" text,
	"secret" text NOT NULL,
	"previous_secret" text,
	"previous_secret_until" bigint,
	"failures_in_row" integer DEFAULT 0 NOT NULL,
	"suspended_at" bigint,
	"suspended_reason" text,
	"actor" text,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE INDEX "event_deliveries_due_idx" ON "event_deliveries" USING btree ("next_at") WHERE status = 'pending';--> statement-breakpoint
CREATE INDEX "event_deliveries_order_idx" ON "event_deliveries" USING btree ("subscription","order_key","event_seq") WHERE status = 'pending';--> statement-breakpoint
CREATE INDEX "event_deliveries_log_idx" ON "event_deliveries" USING btree ("subscription","id");--> statement-breakpoint
CREATE INDEX "events_created_idx" ON "events" USING btree ("created_at");--> statement-breakpoint
-- The outbox (docs/events.md "The outbox"): triggers write an event, and one delivery per
-- subscription that wants it, in the transaction of the change that causes it, whichever
-- statement makes that change (the pump's batch, a verb, a one-statement start, a resolve, a
-- firing pass). Each trigger first asks whether any subscription names the event type at all,
-- so a database without subscriptions pays one index-less probe of an empty table per event.
CREATE FUNCTION "baton_emit_event"(p_type text, p_order_key text, p_process text, p_version integer, p_channel text,
  p_data text, p_at bigint) RETURNS void LANGUAGE plpgsql AS $$
DECLARE s bigint;
BEGIN
  INSERT INTO "events" ("type", "order_key", "process", "data", "created_at")
    VALUES (p_type, p_order_key, p_process, p_data, p_at) RETURNING "seq" INTO s;
  INSERT INTO "event_deliveries" ("subscription", "event_seq", "order_key", "status", "next_at", "created_at")
    SELECT sub."name", s, p_order_key, 'pending', p_at, p_at FROM "subscriptions" sub
    WHERE p_type = ANY(sub."events")
      AND (sub."process" IS NULL OR sub."process" = p_process)
      AND (sub."channel" IS NULL OR sub."channel" = p_channel
           OR (p_version IS NOT NULL AND EXISTS (SELECT 1 FROM "channels" c
               WHERE c."channel" = sub."channel" AND c."name" = p_process AND c."version" = p_version)));
  -- Filters matched nothing: the event row is not kept.
  IF NOT FOUND THEN DELETE FROM "events" WHERE "seq" = s; END IF;
END $$;--> statement-breakpoint
CREATE FUNCTION "baton_instance_event"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE t text := 'instance.' || NEW."status";
BEGIN
  IF NOT EXISTS (SELECT 1 FROM "subscriptions" WHERE t = ANY("events")) THEN RETURN NULL; END IF;
  PERFORM "baton_emit_event"(t, NEW."id", NEW."process", NEW."version", NULL, json_build_object(
    'instance_id', NEW."id", 'root_id', NEW."root_id", 'parent_id', NEW."parent_id", 'process', NEW."process",
    'version', NEW."version", 'status', NEW."status", 'business_key', NEW."key", 'task', NEW."task",
    'output', CASE WHEN NEW."status" = 'completed' THEN NEW."output"::json END,
    'error', CASE WHEN NEW."error_code" IS NOT NULL
                  THEN json_build_object('code', NEW."error_code", 'message', NEW."error_message") END)::text,
    NEW."updated_at");
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER "instances_event_update" AFTER UPDATE ON "instances" FOR EACH ROW
  WHEN (OLD."status" IS DISTINCT FROM NEW."status" AND NEW."status" IN ('completed', 'failed', 'raised', 'cancelled', 'paused'))
  EXECUTE FUNCTION "baton_instance_event"();--> statement-breakpoint
-- A start whose first advance ran in memory inserts its row already settled (docs/engine.md "One advance in memory").
CREATE TRIGGER "instances_event_insert" AFTER INSERT ON "instances" FOR EACH ROW
  WHEN (NEW."status" IN ('completed', 'failed', 'raised'))
  EXECUTE FUNCTION "baton_instance_event"();--> statement-breakpoint
CREATE FUNCTION "baton_waiting_event"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE i record;
BEGIN
  IF NOT EXISTS (SELECT 1 FROM "subscriptions" WHERE 'external_task.waiting' = ANY("events")) THEN RETURN NULL; END IF;
  SELECT "process", "version", "key" INTO i FROM "instances" WHERE "id" = NEW."instance_id";
  PERFORM "baton_emit_event"('external_task.waiting', NEW."instance_id", i."process", i."version", NULL, json_build_object(
    'instance_id', NEW."instance_id", 'process', i."process", 'version', i."version", 'business_key', i."key",
    'task', NEW."task", 'input', NEW."input"::json, 'deadline', NEW."deadline")::text,
    NEW."waiting_since");
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER "external_waits_event_insert" AFTER INSERT ON "external_waits" FOR EACH ROW
  EXECUTE FUNCTION "baton_waiting_event"();--> statement-breakpoint
-- A park upserts its row (engine/pump/wait-rows.ts): a new task visit is a new task_epoch.
CREATE TRIGGER "external_waits_event_update" AFTER UPDATE ON "external_waits" FOR EACH ROW
  WHEN (OLD."task_epoch" IS DISTINCT FROM NEW."task_epoch" OR OLD."task" IS DISTINCT FROM NEW."task")
  EXECUTE FUNCTION "baton_waiting_event"();--> statement-breakpoint
CREATE FUNCTION "baton_fire_failed_event"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE s record;
BEGIN
  IF NOT EXISTS (SELECT 1 FROM "subscriptions" WHERE 'schedule.fire_failed' = ANY("events")) THEN RETURN NULL; END IF;
  SELECT "process", "channel" INTO s FROM "schedules" WHERE "name" = NEW."schedule";
  PERFORM "baton_emit_event"('schedule.fire_failed', 'schedule:' || NEW."schedule", s."process", NULL, s."channel",
    json_build_object('schedule', NEW."schedule", 'process', s."process", 'fire_ms', NEW."fire_at",
      'origin', NEW."origin", 'reason', NEW."reason")::text,
    NEW."fired_at");
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER "schedule_fires_event_insert" AFTER INSERT ON "schedule_fires" FOR EACH ROW
  WHEN (NEW."outcome" = 'failed')
  EXECUTE FUNCTION "baton_fire_failed_event"();
