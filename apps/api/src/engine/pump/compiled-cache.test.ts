import { sql } from "drizzle-orm";
import { freshPgliteDir } from "@baton/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { boundDefinitionCaches } from "../../definitions/cache-bound.js";
import { type Database, openDatabase } from "../../storage/db.js";
import { definitions } from "../../storage/schema/index.js";
import { DefinitionFault } from "../advance/compiled-definition.js";
import { createDefinitionCache } from "./compiled-cache.js";

let database: Database;
beforeAll(async () => {
  database = await openDatabase({ dataDir: await freshPgliteDir() });
});
afterAll(async () => {
  await database?.close();
});

/** A definition of `tasks` output tasks; every name of one length gives texts of one length. */
const text = (name: string, tasks = 2) =>
  JSON.stringify({ name, tasks: Array.from({ length: tasks }, (_, i) => ({ id: `t${i}`, output: { i } })) });

async function store(name: string, definition: string) {
  await database.db.insert(definitions).values({
    name,
    version: 1,
    definition,
    hash: "h1",
    raises: "[]",
    actor: null,
    createdAt: 1_700_000_000_000,
  });
}

describe("the engine's compiled definitions", () => {
  it("keep at most --limit-definition-cache characters of text, least recently used out, compiled again alike", async () => {
    for (const name of ["a", "b", "c"]) await store(name, text(name));
    boundDefinitionCaches(database.db, 2 * text("a").length);
    const cache = createDefinitionCache(database.db);
    const a = await cache.get("a", 1);
    const b = await cache.get("b", 1);
    expect(await cache.get("a", 1), "a kept version is the same compiled object").toBe(a);
    const c = await cache.get("c", 1); // past the bound: b, used least recently, is dropped
    expect(await cache.get("a", 1)).toBe(a);
    expect(await cache.get("c", 1)).toBe(c);
    const again = await cache.get("b", 1);
    expect(again, "a dropped version is compiled again").not.toBe(b);
    expect(again.tasks.map((t) => t.task.id)).toEqual(["t0", "t1"]);
    expect(again.definition).toEqual(b.definition);
  });

  it("keeps a stored version's fault, but not a database error: the next advance reads again", async () => {
    boundDefinitionCaches(database.db, 1024 * 1024);
    const cache = createDefinitionCache(database.db);
    await store("corrupt", "{not json");
    const fault = cache.get("corrupt", 1);
    await expect(fault).rejects.toBeInstanceOf(DefinitionFault);
    expect(cache.get("corrupt", 1), "the fault is kept").toBe(fault);

    await store("moved", text("moved"));
    await database.db.execute(sql`alter table definitions rename to definitions_away`);
    try {
      const failed = cache.get("moved", 1);
      await expect(failed).rejects.not.toBeInstanceOf(DefinitionFault);
      await expect(failed).rejects.toThrow();
    } finally {
      await database.db.execute(sql`alter table definitions_away rename to definitions`);
    }
    expect((await cache.get("moved", 1)).tasks).toHaveLength(2);
  });

  it("gives concurrent advances of one version one compile", async () => {
    await store("shared", text("shared"));
    const cache = createDefinitionCache(database.db);
    const [first, second] = await Promise.all([cache.get("shared", 1), cache.get("shared", 1)]);
    expect(second).toBe(first);
  });
});
