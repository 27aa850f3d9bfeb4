import type { Definition } from "@baton/model";
import { type CompiledDefinition, compileDefinitionInSlices, DefinitionFault } from "../advance/compiled-definition.js";
import type { Db } from "../../storage/db.js";
import { storedDefinition } from "../../definitions/store.js";

/**
 * The engine's compiled definitions, read through definitions/store.ts (the one reader of
 * stored definitions). Definitions are immutable once stored, so a compiled one is cached for
 * the engine's life by (name, version). A definition that fails to compile is cached as its fault.
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
  let stored: Definition | undefined;
  try {
    stored = await storedDefinition(db, name, version);
  } catch (error) {
    if (!(error instanceof SyntaxError)) throw error;
    throw new DefinitionFault(`process "${name}" version ${version}: stored definition is not JSON: ${error.message}`);
  }
  if (stored === undefined) throw new DefinitionFault(`process "${name}" version ${version} is not registered`);
  return compileDefinitionInSlices(stored, version);
}
