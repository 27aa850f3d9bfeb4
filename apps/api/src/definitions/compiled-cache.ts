import { parseJson } from "@baton/expr";
import type { Definition } from "@baton/model";
import { and, eq } from "drizzle-orm";
import { type CompiledDefinition, compileDefinition, DefinitionFault } from "../engine/advance/compiled-definition.js";
import type { Db } from "../storage/db.js";
import { definitions } from "../storage/schema/index.js";

/**
 * Definitions are immutable once stored, so a compiled one is cached forever by (name, version).
 * A definition that fails to compile is cached as its fault.
 */
export function createDefinitionCache(db: Db) {
  const cache = new Map<string, Promise<CompiledDefinition>>();
  return {
    get(name: string, version: number): Promise<CompiledDefinition> {
      const key = `${version}:${name}`;
      let entry = cache.get(key);
      if (entry === undefined) {
        entry = load(db, name, version);
        cache.set(key, entry);
        // A database error is not a property of the definition: let the next advance try again.
        entry.catch((error) => {
          if (!(error instanceof DefinitionFault)) cache.delete(key);
        });
      }
      return entry;
    },
  };
}

export type DefinitionCache = ReturnType<typeof createDefinitionCache>;

async function load(db: Db, name: string, version: number): Promise<CompiledDefinition> {
  const rows = await db
    .select({ definition: definitions.definition })
    .from(definitions)
    .where(and(eq(definitions.name, name), eq(definitions.version, version)));
  if (rows.length === 0) throw new DefinitionFault(`process "${name}" version ${version} is not registered`);
  let parsed: Definition;
  try {
    parsed = parseJson(rows[0].definition) as unknown as Definition;
  } catch (error) {
    throw new DefinitionFault(
      `process "${name}" version ${version}: stored definition is not JSON: ${(error as Error).message}`,
    );
  }
  return compileDefinition(parsed, version);
}
