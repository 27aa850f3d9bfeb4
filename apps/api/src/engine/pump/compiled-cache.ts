import type { Definition } from "@baton/model";
import { type CompiledDefinition, compileDefinitionInSlices, DefinitionFault } from "../advance/compiled-definition.js";
import type { Db } from "../../storage/db.js";
import { definitionCacheBound, definitionWeight } from "../../definitions/cache-bound.js";
import { storedDefinition } from "../../definitions/store.js";
import { storedDefinitionFault } from "../../definitions/stored-fault.js";
import { lruCache } from "../../storage/per-db-cache.js";

/**
 * The engine's compiled definitions, read through definitions/store.ts (the one reader of
 * stored definitions). Definitions are immutable once stored, so a compiled one is kept by
 * (name, version), least recently used out first past --limit-definition-cache characters of
 * their stored text (docs/limits.md#cached-definitions); an evicted one is compiled again. A
 * definition that fails to compile is kept as its fault.
 */
export function createDefinitionCache(db: Db) {
  const cache = lruCache<CompiledDefinition>({
    bound: () => definitionCacheBound(db),
    weigh: (compiled) => definitionWeight(compiled.definition),
    // A database error is not a property of the definition: let the next advance try again.
    keepsFailure: (error) => error instanceof DefinitionFault,
  });
  return {
    get(name: string, version: number): Promise<CompiledDefinition> {
      return cache.load(`${version}:${name}`, () => load(db, name, version));
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
  const fault = storedDefinitionFault(stored, version);
  if (fault !== undefined) throw new DefinitionFault(fault);
  return compileDefinitionInSlices(stored, version);
}
