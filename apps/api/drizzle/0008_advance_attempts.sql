-- Claims of an instance since its last landed advance write (docs/limits.md#poison-instances):
-- past --limit-advance-attempts the instance fails with engine.crashed instead of retrying forever.
ALTER TABLE "instances" ADD COLUMN IF NOT EXISTS "attempts" integer DEFAULT 0 NOT NULL;
