import { eq } from "drizzle-orm";
import { freshPgliteDir } from "@baton/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Database, type Db, openDatabase } from "../storage/db.js";
import { definitions } from "../storage/schema/index.js";
import { boundDefinitionCaches } from "./cache-bound.js";
import { definitionText, keepStoredText, requireDefinition, requireDefinitionRow, storedDefinition } from "./store.js";
import { boundTextCache, keepText, keptText } from "./text-cache.js";

let database: Database;
beforeAll(async () => {
  database = await openDatabase({ dataDir: await freshPgliteDir() });
});
afterAll(async () => {
  await database?.close();
});

const text = (name: string, n: number) =>
  JSON.stringify({ name, tasks: Array.from({ length: n }, (_, i) => ({ id: `t${i}` })) });

async function store(name: string, version: number, definition: string) {
  await database.db.insert(definitions).values({
    name,
    version,
    definition,
    hash: `h${version}`,
    raises: "[]",
    actor: null,
    createdAt: 1_700_000_000_000 + version,
  });
}

/**
 * Overwrites a stored version's text in place (the service never does: versions are
 * immutable), so a later read shows whether the text was read again or kept.
 */
async function overwrite(name: string, definition: string) {
  await database.db.update(definitions).set({ definition }).where(eq(definitions.name, name));
}

describe("reading stored versions", () => {
  it("reads a version's text once: GET, start and the engine then use the kept text and parse", async () => {
    await store("kept", 1, text("kept", 3));
    const row = await requireDefinitionRow(database.db, "kept", 1);
    expect(row).toMatchObject({ name: "kept", version: 1, hash: "h1", actor: null, definition: text("kept", 3) });
    await overwrite("kept", text("kept", 5));
    expect((await requireDefinitionRow(database.db, "kept", 1)).definition).toBe(text("kept", 3));
    expect((await requireDefinitionRow(database.db, "kept")).definition).toBe(text("kept", 3));
    expect(await definitionText(database.db, "kept", 1)).toBe(text("kept", 3));
    const stored = await requireDefinition(database.db, "kept");
    expect(stored).toMatchObject({ name: "kept", version: 1, hash: "h1", raises: [] });
    expect(stored.definition.tasks).toHaveLength(3);
    expect((await storedDefinition(database.db, "kept", 1))?.tasks).toHaveLength(3);
  });

  it("serves a version registered by this server from the text it stored, without reading the row back", async () => {
    await store("registered", 1, text("registered", 2));
    keepStoredText(database.db, "registered", 1, text("registered", 2));
    await overwrite("registered", text("registered", 9));
    expect((await requireDefinitionRow(database.db, "registered", 1)).definition).toBe(text("registered", 2));
    expect((await requireDefinition(database.db, "registered")).definition.tasks).toHaveLength(2);
  });

  it("reads the short columns of the latest version on every call, so a new version is seen at once", async () => {
    await store("moving", 1, text("moving", 1));
    expect((await requireDefinition(database.db, "moving")).version).toBe(1);
    await store("moving", 2, text("moving", 2));
    const latest = await requireDefinition(database.db, "moving");
    expect(latest.version).toBe(2);
    expect(latest.definition.tasks).toHaveLength(2);
    expect((await requireDefinitionRow(database.db, "moving", 0)).definition).toBe(text("moving", 2));
  });

  it("keeps no miss: a version registered after a read that found nothing is read", async () => {
    expect(await definitionText(database.db, "later", 1)).toBeUndefined();
    await expect(requireDefinitionRow(database.db, "later", 1)).rejects.toThrow('process "later" is not registered');
    await store("later", 1, text("later", 1));
    expect(await definitionText(database.db, "later", 1)).toBe(text("later", 1));
  });
});

describe("the parsed versions kept", () => {
  it("are bounded by --limit-definition-cache: the least recently used is dropped and read again alike", async () => {
    // A database of its own: the bound is per database handle.
    const bounded = await openDatabase({ dataDir: await freshPgliteDir() });
    try {
      const db = bounded.db;
      for (const name of ["a", "b", "c"])
        await db.insert(definitions).values({
          name,
          version: 1,
          definition: text(name, 3),
          hash: "h1",
          raises: "[]",
          actor: null,
          createdAt: 1_700_000_000_000,
        });
      boundDefinitionCaches(db, 2 * text("a", 3).length);
      const a = await storedDefinition(db, "a", 1);
      const b = await storedDefinition(db, "b", 1);
      expect(await storedDefinition(db, "a", 1), "a kept version is the same parse").toBe(a);
      const c = await storedDefinition(db, "c", 1); // past the bound: b, used least recently, is dropped
      expect(await storedDefinition(db, "a", 1)).toBe(a);
      expect(await storedDefinition(db, "c", 1)).toBe(c);
      const again = await storedDefinition(db, "b", 1);
      expect(again, "a dropped version is parsed again").not.toBe(b);
      expect(again).toEqual(b);
      expect(again?.tasks).toHaveLength(3);
    } finally {
      await bounded.close();
    }
  });
});

describe("the kept texts", () => {
  it("drop the least recently used text past the bound, and never keep one larger than the bound", async () => {
    // Kept texts are per database handle: a fresh handle starts empty.
    const db = {} as Db;
    boundTextCache(db, 100);
    keepText(db, "a", 1, "a".repeat(40));
    keepText(db, "b", 1, "b".repeat(40));
    expect(await keptText(db, "a", 1)).toHaveLength(40); // a is now the most recently used
    keepText(db, "c", 1, "c".repeat(40));
    expect(await keptText(db, "b", 1)).toBeUndefined();
    expect(await keptText(db, "a", 1)).toHaveLength(40);
    expect(await keptText(db, "c", 1)).toHaveLength(40);
    keepText(db, "d", 1, "d".repeat(101));
    expect(await keptText(db, "d", 1)).toBeUndefined();
    expect(await keptText(db, "a", 1)).toHaveLength(40);
  });
});
