import type { ExprLimitError, Json } from "@baton/expr";
import type { ServerConfig } from "../../config.js";
import { evalLimitFlag, evalLimitsOf, flagOf } from "../../limits.js";
import type { Clock } from "../../clock.js";
import type { Db } from "../../storage/db.js";
import type { AdvanceInput, AdvanceResult } from "../advance/advance-types.js";
import type { CompiledDefinition } from "../advance/compiled-definition.js";
import { configRoot, globalGrants, grantedEnv } from "../advance/config-root.js";
import type { InMemoryBasis } from "../advance/in-memory.js";
import type { InstanceState } from "../advance/instance-state.js";
import { stateLimitFailure } from "../advance/state-limit.js";
import { redactAdvanceResult, secretsCache } from "../secrets.js";
import type { LeasedRow } from "../leases.js";
import { createDefinitionCache } from "./compiled-cache.js";

/**
 * What every advance of one engine shares, whether the pump runs it (run-advance.ts) or a
 * request computes it in memory (in-memory.ts): the compiled definitions, the I/O-free part of
 * the environment, and the bounding and redaction of the result. One home, so the two paths
 * cannot drift: the one-version resolve stores exactly what the pump would have stored.
 */
export function createAdvanceBasis(deps: {
  db: Db;
  clock: Clock;
  config: ServerConfig;
  workerId: string;
  /** Source of `config.<NAME>` values. */
  env: NodeJS.ProcessEnv;
}) {
  const { db, clock, config, workerId, env } = deps;
  const definitions = createDefinitionCache(db);
  const configRoots = new WeakMap<CompiledDefinition, { [key: string]: Json }>();
  // Globals shared with some scopes only are read by those processes only (docs/security.md "The secret model").
  const grants = globalGrants(config.sharedGlobals ?? []);
  const secretsOf = secretsCache(env);
  const evalLimits = evalLimitsOf(config.limits);
  const now = () => clock.now();
  const limitFlag = (error: ExprLimitError) => evalLimitFlag(error.limit);
  return {
    definitions,
    secretsOf,
    /** The environment of an advance of `def` short of its I/O (fetch, signals, children). */
    environment(def: CompiledDefinition): InMemoryBasis {
      return {
        worker: workerId,
        now,
        random: Math.random,
        config: () => {
          let root = configRoots.get(def);
          if (root === undefined) {
            root = configRoot(def.definition, grantedEnv(env, def.definition.name, grants));
            configRoots.set(def, root);
          }
          return root;
        },
        evalLimits,
        limitFlag,
        maxChildrenPerVisit: config.limits.childrenPerVisit,
        maxEntriesWithoutWaiting: config.limits.entriesWithoutWaiting,
        maxVisitsRecorded: config.limits.visitsRecorded,
        maxVisitRecordBytes: config.limits.visitRecordBytes,
      };
    },
    /**
     * The result as it is written: an oversized state fails the instance instead (never walked
     * again, so this comes before redaction), then secrets are redacted from its messages.
     */
    finish(result: AdvanceResult, before: InstanceState, secrets: readonly string[]): AdvanceResult {
      const bounded = stateLimitFailure(result, before, config.limits.stateBytes, flagOf("stateBytes")) ?? result;
      return redactAdvanceResult(bounded, secrets);
    },
  };
}

export type AdvanceBasis = ReturnType<typeof createAdvanceBasis>;

/**
 * The one builder of an advance's input from its row and the state it advances (externalised
 * values resolved): the pump's (run-advance.ts) and a request's in-memory advance (in-memory.ts).
 * A row whose last lease expired without a write (`reclaimedFrom`) is advanced as reclaimed.
 */
export function advanceInputOf(row: LeasedRow, state: InstanceState): AdvanceInput {
  return {
    id: row.id,
    process: row.process,
    version: row.version,
    task: row.task,
    taskEpoch: row.taskEpoch,
    retryCount: row.retryCount,
    state,
    reclaimed: row.reclaimedFrom !== null,
    previousOwner: row.reclaimedFrom,
  };
}
