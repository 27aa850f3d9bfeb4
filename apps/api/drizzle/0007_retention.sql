-- Retention (docs/retention.md). Settled roots by when they settled: the pruner's candidates.
CREATE INDEX IF NOT EXISTS "instances_settled_roots_idx" ON "instances" ("updated_at")
  WHERE "parent_id" IS NULL AND "status" IN ('completed', 'failed', 'raised', 'cancelled');
--> statement-breakpoint
-- The object refs ({"$ref":"<sha256>"} placeholders) in an instance's state and output.
CREATE OR REPLACE FUNCTION baton_object_refs(state text, output text) RETURNS text[]
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$ SELECT coalesce(array_agg(DISTINCT m[1]), '{}'::text[])
        FROM regexp_matches(coalesce(state, '') || ' ' || coalesce(output, ''), '"\$ref":"([0-9a-f]{64})"', 'g') AS m $$;
--> statement-breakpoint
-- Which instances reference an object: only rows holding a placeholder are indexed.
CREATE INDEX IF NOT EXISTS "instances_object_refs_idx" ON "instances" USING gin (baton_object_refs("state", "output"))
  WHERE strpos("state", '"$ref"') > 0 OR strpos(coalesce("output", ''), '"$ref"') > 0;
--> statement-breakpoint
-- Objects by when they were last stored (created_at is refreshed on every store), for the sweep.
CREATE INDEX IF NOT EXISTS "objects_created_idx" ON "objects" ("created_at", "ref");
