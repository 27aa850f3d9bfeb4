import { type Json, parseWrittenJson, stringifyJson } from "@baton/expr";
import type { EngineMetrics } from "../../metrics/metrics.js";
import { listRefs, planExternalize } from "../../storage/objects.js";
import { DefinitionFault } from "../advance/compiled-definition.js";
import { advanceInMemory } from "../advance/in-memory.js";
import { asInstanceState } from "../advance/instance-state.js";
import type { InMemoryAdvance } from "../carry.js";
import { type AdvanceBasis, advanceInputOf } from "./advance-basis.js";
import type { LeasedRow } from "../leases.js";
import { toStore } from "./commit.js";
import { usesFlowControl } from "../flow/needs.js";

/**
 * The advance the pump would run for `row` next, computed with no I/O (docs/engine.md "One
 * advance in memory"), for a request that writes the final row itself. Undefined whenever that
 * cannot be exact — the advance reaches a fetch, a child task or the signal buffer, the state
 * holds externalised values (reading them is I/O), the result would store new objects, the
 * definition declares flow control, or it cannot be compiled — and the caller takes the path that leases the row first.
 * The row is taken as a first attempt: it was not claimed, so no earlier attempt can have run.
 */
export function createInMemoryAdvance(basis: AdvanceBasis, thresholdBytes: number, metrics: EngineMetrics) {
  return async (row: LeasedRow): Promise<InMemoryAdvance | undefined> => {
    const began = performance.now();
    // Written by the committer (stringifyJson): the fast exact parse applies.
    const storedState = asInstanceState(parseWrittenJson(row.stateText));
    if (listRefs(storedState as unknown as Json).length > 0) return undefined;
    let def: Awaited<ReturnType<AdvanceBasis["definitions"]["get"]>>;
    try {
      def = await basis.definitions.get(row.process, row.version);
    } catch (error) {
      if (error instanceof DefinitionFault) return undefined;
      throw error;
    }
    // Its advance may need a flow-control slot first (docs/flow-control.md "Slots"): the gate reads.
    if (usesFlowControl(def.definition)) return undefined;
    // Taken as a first attempt (not reclaimed, no previous owner), whatever the row says: see above.
    const computed = await advanceInMemory(
      def,
      advanceInputOf({ ...row, reclaimedFrom: null }, storedState),
      basis.environment(def),
    );
    if (computed === undefined) return undefined;
    const result = basis.finish(computed, storedState, basis.secretsOf(def.definition));
    const state = planExternalize(toStore(storedState, result), thresholdBytes);
    const output = result.output === undefined ? undefined : planExternalize(result.output, thresholdBytes);
    if (state.objects.length > 0 || (output?.objects.length ?? 0) > 0) return undefined;
    const taskKind = def.byId.get(row.task)?.task.action?.type ?? "routing";
    return {
      result,
      state: stringifyJson(state.value),
      output: output === undefined ? null : stringifyJson(output.value),
      report: (applied) =>
        metrics.advanced(
          taskKind,
          applied ? result.status : "dropped",
          (performance.now() - began) / 1000,
          row.process,
        ),
    };
  };
}
