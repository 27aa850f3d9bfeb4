// A stored version the API cannot use (docs/limits.md#defs-cycles-in-stored-definitions): `$defs`
// cycles, which registration refuses but a database may still hold. The start, the engine
// (pump/compiled-cache.ts, so children too), external outcomes and the upgrade and compat checks
// (check-jobs.ts, on the checker thread) ask here before they validate anything against it: the
// validator overflows its stack on such $defs, and each of those paths would answer 500.
import { type Definition, defsCycles, describeDefsCycle } from "@baton/model";
import { invalid } from "../refusal.js";

// A stored version never changes, and its parsed form is cached (store.ts): ask once per parse.
const faults = new WeakMap<Definition, string | null>();

/** Why version `version` of `definition` cannot be used, as a sentence naming it, or undefined when it can. */
export function storedDefinitionFault(definition: Definition, version: number): string | undefined {
  let fault = faults.get(definition);
  if (fault === undefined) {
    const [cycle] = defsCycles(definition.$defs);
    fault =
      cycle === undefined
        ? null
        : `process "${definition.name}" version ${version} cannot be used: its ${describeDefsCycle(cycle)} ` +
          "(stored before registration refused such $defs, docs/limits.md#defs-cycles-in-stored-definitions); register a fixed version";
    faults.set(definition, fault);
  }
  return fault ?? undefined;
}

/** The refusal of a request that needs a stored version that cannot be used (400 `invalid`); `then` says what next. */
export function refuseFaultyDefinition(definition: Definition, version: number, then = ""): void {
  const fault = storedDefinitionFault(definition, version);
  if (fault !== undefined) throw invalid(`${fault}${then}`);
}
