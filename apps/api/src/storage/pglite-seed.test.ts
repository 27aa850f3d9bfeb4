import { existsSync, mkdtempSync, readFileSync, rmSync, unlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { sql } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { openDatabase, rowsOf } from "./db.js";
import { seedFromTemplate } from "./pglite-seed.js";

const TEMPLATE = fileURLToPath(new URL("../../dist/pglite-template.tar.gz", import.meta.url));
const JOURNAL = fileURLToPath(new URL("../../drizzle/meta/_journal.json", import.meta.url));
const root = mkdtempSync(join(tmpdir(), "baton-pglite-seed-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("a fresh PGlite data directory is seeded from the migrated template the build ships", () => {
  it("the build shipped the template (pnpm build of @baton/api)", () => {
    expect(existsSync(TEMPLATE), `${TEMPLATE} is missing: build @baton/api`).toBe(true);
  });

  it("an empty directory opens with every migration applied, and a seeded one is left as it is", async () => {
    const dir = join(root, "fresh");
    const database = await openDatabase({ dataDir: dir });
    try {
      const [row] = rowsOf<{ n: number }>(
        await database.db.execute(sql`select count(*)::int as n from drizzle.__drizzle_migrations`),
      );
      const journal = JSON.parse(readFileSync(JOURNAL, "utf8")) as { entries: unknown[] };
      expect(row?.n).toBe(journal.entries.length);
    } finally {
      await database.close();
    }
    expect(seedFromTemplate(dir, TEMPLATE)).toBe(false);
  });

  it("a directory a crash left without PG_VERSION is seeded again", () => {
    const dir = join(root, "crashed");
    expect(seedFromTemplate(dir, TEMPLATE)).toBe(true);
    unlinkSync(join(dir, "PG_VERSION"));
    expect(seedFromTemplate(dir, TEMPLATE)).toBe(true);
    expect(existsSync(join(dir, "PG_VERSION"))).toBe(true);
  });
});
