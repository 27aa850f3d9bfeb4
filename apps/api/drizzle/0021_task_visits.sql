CREATE TABLE "task_visits" (
	"instance_id" text NOT NULL,
	"task_epoch" integer NOT NULL,
	"task" text NOT NULL,
	"kind" text NOT NULL,
	"from_epoch" integer,
	"from_task" text,
	"output" text,
	"children" text,
	"error" text,
	"snapshot" text,
	"whole" boolean DEFAULT true NOT NULL,
	"created_at" bigint NOT NULL,
	CONSTRAINT "task_visits_instance_id_task_epoch_pk" PRIMARY KEY("instance_id","task_epoch")
);
