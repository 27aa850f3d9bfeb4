// Migration 0011 (docs/limits.md#trees): a database migrated up to 0010, holding trees, is
// opened by this version; every existing root's tree_size becomes its tree's row count, children
// keep none, and nobody holds a reservation. On PGlite, or PostgreSQL with DATABASE_URL.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { PGlite } from "@electric-sql/pglite";
import { createTestDatabase, dropTestDatabase, onPostgres } from "@baton/testkit";
import { sql } from "drizzle-orm";
import { drizzle as drizzleLite } from "drizzle-orm/pglite";
import { migrate as migrateLite } from "drizzle-orm/pglite/migrator";
import { drizzle as drizzlePg } from "drizzle-orm/postgres-js";
import { migrate as migratePg } from "drizzle-orm/postgres-js/migrator";
import postgres from "postgres";
import { afterAll, expect, it } from "vitest";
import { openDatabase, rowsOf } from "../../src/storage/db.js";

const MIGRATIONS = fileURLToPath(new URL("../../drizzle", import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), "baton-0011-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** The migrations folder as it was before 0011: the journal cut after 0010. */
function migrationsBefore0011(): string {
  const folder = join(scratch, "drizzle");
  cpSync(MIGRATIONS, folder, { recursive: true });
  const journal = JSON.parse(readFileSync(join(folder, "meta/_journal.json"), "utf8"));
  journal.entries = journal.entries.filter((e: { idx: number }) => e.idx <= 10);
  writeFileSync(join(folder, "meta/_journal.json"), JSON.stringify(journal));
  return folder;
}

// Two trees as the 0010 schema stores them (no tree columns): a root with three children and a
// grandchild, and a lone root.
const SEED = `
  INSERT INTO instances (id, root_id, parent_id, process, version, status, task, state, created_at, updated_at)
  VALUES ('a', 'a', NULL, 'p', 1, 'running', 't', '{}', 0, 0), ('a1', 'a', 'a', 'p', 1, 'running', 't', '{}', 0, 0),
         ('a2', 'a', 'a', 'p', 1, 'completed', 't', '{}', 0, 0), ('a3', 'a', 'a', 'p', 1, 'running', 't', '{}', 0, 0),
         ('a11', 'a', 'a1', 'p', 1, 'running', 't', '{}', 0, 0), ('b', 'b', NULL, 'p', 1, 'completed', 't', '{}', 0, 0)`;

it("sets every existing root's tree_size to its tree's row count, and no reservation", async () => {
  const folder = migrationsBefore0011();
  let url: string | undefined;
  const dataDir = join(scratch, "pglite");
  if (onPostgres) {
    url = await createTestDatabase();
    const client = postgres(url, { max: 1, onnotice: () => {} });
    await migratePg(drizzlePg(client), { migrationsFolder: folder });
    await client.unsafe(SEED);
    await client.end({ timeout: 5 });
  } else {
    const client = new PGlite(dataDir);
    await migrateLite(drizzleLite(client), { migrationsFolder: folder });
    await client.exec(SEED);
    await client.close();
  }
  const database = await openDatabase(url === undefined ? { dataDir } : { url, poolSize: 2 });
  try {
    const rows = rowsOf<{ id: string; tree_size: unknown; reserved_children: unknown; reserved_epoch: unknown }>(
      await database.db.execute(
        sql`SELECT id, tree_size, reserved_children, reserved_epoch FROM instances ORDER BY id`,
      ),
    );
    expect(
      rows.map((r) => [
        r.id,
        r.tree_size === null ? null : Number(r.tree_size),
        Number(r.reserved_children),
        r.reserved_epoch,
      ]),
    ).toEqual([
      ["a", 5, 0, null],
      ["a1", null, 0, null],
      ["a11", null, 0, null],
      ["a2", null, 0, null],
      ["a3", null, 0, null],
      ["b", 1, 0, null],
    ]);
  } finally {
    await database.close();
    if (url !== undefined) await dropTestDatabase(url);
  }
});
