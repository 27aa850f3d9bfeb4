CREATE TABLE "object_keys" (
	"id" integer PRIMARY KEY NOT NULL,
	"key" text NOT NULL
);
