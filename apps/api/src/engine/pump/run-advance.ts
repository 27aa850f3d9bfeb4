import { type Json, parseWrittenJson, type Scope } from "@baton/expr";
import { type Logger, withFields } from "@baton/log";
import type { ServerConfig } from "../../config.js";
import { flagOf } from "../../limits.js";
import { type EngineMetrics, statusClass, type TraceExemplar } from "../../metrics/metrics.js";
import type { Clock } from "../../clock.js";
import type { Db } from "../../storage/db.js";
import { isDatabaseUnavailable } from "../../storage/db-unavailable.js";
import { errorStack, errorText } from "../../loggable-error.js";
import { listRefs, resolveRefs } from "../../storage/objects.js";
import { AdvanceAbandoned } from "../advance/abandoned.js";
import { advance } from "../advance/advance.js";
import type { AdvanceResult } from "../advance/advance-types.js";
import { type CompiledTask, DefinitionFault } from "../advance/compiled-definition.js";
import { fetchPolicyOf } from "../fetch/host-policy.js";
import { asInstanceState, type InstanceState } from "../advance/instance-state.js";
import type { ChildEnvironment } from "../advance/tasks/child.js";
import { runFetch } from "../fetch/run-fetch.js";
import { peekSignal } from "../external/signal-buffer.js";
import { redactText } from "../secrets.js";
import { isSettled } from "../statuses.js";
import { type AdvanceBasis, advanceInputOf } from "./advance-basis.js";
import { childEnvironment, newTreeMemo, SpawnerFenced } from "./child-environment.js";
import type { LeasedRow } from "../leases.js";
import type { WriteOutcome } from "./commit.js";
import type { createCommitter } from "./committer.js";
import type { InFlight } from "./in-flight.js";
import { ensureLease, LeaseTooShort } from "./lease-renewal.js";
import { crashedFailure, definitionFailure, failedWithoutAdvance } from "./failed-without-advance.js";
import { gateAdvance } from "../flow/gate.js";
import { type FlowNeed, usesFlowControl } from "../flow/needs.js";
import { instanceTraceparent, type Tracing, tracing } from "../../tracing/index.js";
import type { Span } from "../../tracing/sdk.js";

export interface RunnerDeps {
  db: Db;
  clock: Clock;
  config: ServerConfig;
  log: Logger;
  workerId: string;
  /** Definitions, environment and result bounding, shared with the in-memory advances (advance-basis.ts). */
  basis: AdvanceBasis;
  metrics: EngineMetrics;
  committer: ReturnType<typeof createCommitter>;
  /** Asks the loop for a claim round soon (engine.ts). */
  wake: () => void;
  /** EngineDeps.beforeWrite. */
  beforeWrite?: (instanceId: string) => Promise<void>;
  /** Asks for a flow-control grant pass soon (engine/flow/chore.ts): a wait was queued or a slot freed. */
  flowPass: () => void;
}

/** Runs one claimed advance and submits its write; resolves with whether the write landed. */
export type RunAdvance = (
  row: LeasedRow,
  stored: InstanceState | undefined,
  entry: InFlight,
  keepLease: boolean,
) => Promise<WriteOutcome>;

/**
 * The pump's side of one advance (docs/engine.md#the-pump-claims-and-leases): read what the
 * advance needs (state objects, the compiled definition, secrets), give it its environment
 * (clock, config root, fetch, signals, children), redact and bound its result, and hand it to
 * the committer. Every failure ends in `{ applied: false }`: the lease then expires and another
 * round retries the instance.
 */
export function createAdvanceRunner(deps: RunnerDeps): RunAdvance {
  const { db, clock, config, workerId, basis, metrics, committer, wake, beforeWrite, flowPass } = deps;
  const { definitions, secretsOf } = basis;
  const treeLimits = {
    maxDepth: config.limits.treeDepth,
    maxInstances: config.limits.treeInstances,
    depthFlag: flagOf("treeDepth"),
    instancesFlag: flagOf("treeInstances"),
  };
  const treeMemo = newTreeMemo();
  const gateDeps = { db, clock, workerId, metrics, maxKeyChars: config.limits.flowKeyChars, beforeWrite, flowPass };
  const fetchPolicy = fetchPolicyOf(config);

  /**
   * With tracing on, the advance has its span (docs/tracing.md "Spans"): a child of the
   * instance's stored trace context, so whichever replica runs it, after a restart or a
   * reclaim, it joins the same trace; its fetch's client span and its log lines join it.
   */
  function traced(
    row: LeasedRow,
    stored: InstanceState | undefined,
    entry: InFlight,
    keepLease: boolean,
  ): Promise<WriteOutcome> {
    const tracer = tracing();
    if (tracer === undefined) return run(row, stored, entry, keepLease);
    const span = tracer.startSpan(
      `advance ${row.task}`,
      "internal",
      {
        "baton.process": row.process,
        "baton.version": row.version,
        "baton.instance_id": row.id,
        "baton.tree_root": row.rootId,
        "baton.task": row.task,
        "baton.task_epoch": row.taskEpoch,
        "baton.attempt": row.retryCount + 1,
        "baton.claims": row.attempts,
        "baton.lease_epoch": row.leaseEpoch,
        "baton.reclaimed": row.reclaimedFrom !== null,
      },
      instanceTraceparent(row.traceParent, row.rootId, row.id),
    );
    const traceParent = tracer.traceparentOf(span);
    const exemplar = tracer.logFields(span);
    const log = withFields(deps.log, exemplar);
    return run(row, stored, entry, keepLease, { tracer, span, traceParent, log, exemplar }).finally(() => span.end());
  }

  async function run(
    row: LeasedRow,
    stored: InstanceState | undefined,
    entry: InFlight,
    keepLease: boolean,
    trace?: { tracer: Tracing; span: Span; traceParent: string; log: Logger; exemplar: TraceExemplar },
  ): Promise<WriteOutcome> {
    // Inside the advance's span, every line carries its trace_id and span_id (docs/tracing.md "Logs").
    const log = trace?.log ?? deps.log;
    const abandoned = entry.abort.signal;
    let secrets: string[] = [];
    const began = performance.now();
    let taskKind = "unknown";
    const report = (outcome: string) => {
      metrics.advanced(taskKind, outcome, (performance.now() - began) / 1000, row.process, trace?.exemplar);
      trace?.span.setAttributes({ "baton.task_kind": taskKind, "baton.outcome": outcome });
    };
    try {
      // Written by the committer (stringifyJson): no duplicate keys, so the fast exact parse applies.
      const storedState = stored ?? asInstanceState(parseWrittenJson(row.stateText));
      const storedJson = storedState as unknown as Json;
      // Claimed too often without a write landing (a crash or a write that keeps failing):
      // fail it as it stands, reading nothing more that could be what crashes
      // (docs/limits.md#poison-instances).
      const crashed = row.attempts > config.limits.advanceAttempts;
      const state =
        !crashed && listRefs(storedJson).length > 0 ? asInstanceState(await resolveRefs(db, storedJson)) : storedState;
      // After the last round trip before the advance (claim, kept-lease write, object reads).
      await ensureLease(db, clock, workerId, row.id, entry);
      let result: AdvanceResult | undefined;
      let children: ChildEnvironment | undefined;
      let needs: FlowNeed[] = [];
      try {
        const def = await definitions.get(row.process, row.version);
        secrets = secretsOf(def.definition);
        const task = def.byId.get(row.task)?.task;
        taskKind = task?.action?.type ?? "routing";
        if (row.reclaimedFrom !== null && task?.only_once) metrics.onlyOnceInterrupted();
        // Flow control (docs/flow-control.md "Slots"): a definition without it reads nothing here.
        if (!crashed && usesFlowControl(def.definition)) {
          const gate = await gateAdvance(gateDeps, def, row, state, basis.environment(def));
          needs = gate.needs;
          if (gate.failure !== undefined)
            result = failedWithoutAdvance(row, state, gate.failure.code, `flow-control key: ${gate.failure.message}`);
          else if (gate.parked !== undefined) {
            report(gate.parked.applied ? "waiting" : "dropped");
            return gate.parked;
          }
        }
        if (result === undefined)
          result = crashed
            ? crashedFailure(row, state, config.limits.advanceAttempts)
            : await advance(def, advanceInputOf(row, state), {
                ...basis.environment(def),
                fetch: async (task: CompiledTask, scope: Scope, taskEpoch: number) => {
                  // The request leaves right after this check: the definition and signal reads are behind it.
                  await ensureLease(db, clock, workerId, row.id, entry);
                  return runFetch(task.fetch!, {
                    instanceId: row.id,
                    taskId: task.task.id,
                    taskEpoch,
                    scope,
                    policy: fetchPolicy,
                    defs: def.definition.$defs,
                    abort: abandoned,
                    maxResponseBytes: config.limits.fetchResponseBytes,
                    observeCall: (host, status, seconds) =>
                      metrics.fetched(host, statusClass(status), seconds, trace?.exemplar),
                    traceParent: trace?.traceParent,
                  });
                },
                peekSignal: abandonWhenUnavailable((task: string) => peekSignal(db, row.id, task)),
                // Made on first use (only child tasks read it), then the same one for the whole
                // advance: its version lookups and the depth it learned are shared by its spawns.
                get children() {
                  children ??= childReads(
                    childEnvironment(
                      db,
                      clock,
                      definitions,
                      {
                        id: row.id,
                        rootId: row.rootId,
                        process: row.process,
                        version: row.version,
                        leaseEpoch: row.leaseEpoch,
                      },
                      treeLimits,
                      treeMemo,
                    ),
                  );
                  return children;
                },
              });
      } catch (error) {
        if (!(error instanceof DefinitionFault)) throw error;
        result = definitionFailure(row, state, error.message);
      }
      const finished = basis.finish(result, state, secrets);
      // The code only: an error message may quote an upstream's body.
      if (trace !== undefined && finished.errorCode !== null) trace.tracer.fail(trace.span, finished.errorCode);
      if (beforeWrite !== undefined) await beforeWrite(row.id);
      if (abandoned.aborted) {
        report("abandoned");
        return { applied: false };
      }
      entry.writing = true;
      const outcome = await committer
        .submit({
          claim: row,
          storedState,
          result: finished,
          keepLeaseFor: keepLease ? workerId : undefined,
          traceParent: trace?.traceParent,
        })
        .finally(() => (entry.writing = false));
      report(outcome.applied ? finished.status : "dropped");
      // A slot this advance held may be free now: the visit moved on or the instance settled.
      const settled = finished.status !== "running";
      if (outcome.applied && needs.some((n) => settled || (n.taskEpoch !== -1 && finished.taskEpoch !== row.taskEpoch)))
        flowPass();
      if (!outcome.applied)
        log.warn("advance dropped: the lease moved on", { instance: row.id, lease_epoch: row.leaseEpoch });
      // Work this write made due elsewhere in the tree: the children it spawned, or the parent
      // a settling child may have woken. Without a wake they would wait for the next poll.
      else if ((finished.spawns?.length ?? 0) > 0 || (row.parentId !== null && isSettled(outcome.status ?? ""))) wake();
      return outcome;
    } catch (error) {
      if (error instanceof LeaseTooShort) {
        // Nothing was sent, and a renewal could not keep the lease: drop the advance and let the
        // lease expire (docs/engine.md).
        log.warn("advance dropped: too little of the lease left to act", {
          instance: row.id,
          lease_epoch: row.leaseEpoch,
          lease_left_ms: error.leftMs,
        });
        return { applied: false };
      }
      if (error instanceof SpawnerFenced) {
        log.warn("advance dropped: the lease moved on", { instance: row.id, lease_epoch: row.leaseEpoch });
        return { applied: false };
      }
      if (error instanceof AdvanceAbandoned || isDatabaseUnavailable(error)) {
        log.warn("advance dropped: the database is unreachable", { instance: row.id, lease_epoch: row.leaseEpoch });
        return { applied: false };
      }
      // The lease expires and another round retries the instance (as a reclaim).
      report("error");
      if (trace !== undefined) trace.tracer.fail(trace.span, "engine.panic");
      log.error("advance failed", {
        instance: row.id,
        error: redactText(errorText(error), secrets),
        stack: redactText(String(errorStack(error)), secrets),
      });
      return { applied: false };
    }
  }

  return traced;
}

/** A read the advance needs failed because the database is gone: abandon, never fail the task. */
function abandonWhenUnavailable<A extends unknown[], R>(read: (...args: A) => Promise<R>): (...args: A) => Promise<R> {
  return (...args) =>
    read(...args).catch((error: unknown) => {
      if (isDatabaseUnavailable(error)) throw new AdvanceAbandoned("the database is unreachable", { cause: error });
      throw error;
    });
}

function childReads(children: ChildEnvironment): ChildEnvironment {
  return {
    ...children,
    resolveChild: abandonWhenUnavailable(children.resolveChild),
    loadChildren: abandonWhenUnavailable(children.loadChildren),
    reserveChildren: abandonWhenUnavailable(children.reserveChildren),
  };
}
