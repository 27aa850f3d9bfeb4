import type { LogLevel } from "@baton/log";
import type { EvalLimits, ExprLimitError, Json, Scope } from "@baton/expr";
import type { ChildEnvironment, ChildSpawn } from "./tasks/child.js";
import type { CompiledDefinition, CompiledTask } from "./compiled-definition.js";
import type { FetchResult } from "./tasks/fetch.js";
import type { InstanceState } from "./instance-state.js";
import type { BufferedSignal, ExternalPark } from "./tasks/wait.js";
import type { VisitRecord } from "./visits.js";

export interface EngineLog {
  level: LogLevel;
  event: string;
  message: string;
  task?: string | null;
  data?: Record<string, Json> | null;
}

/** What the claim handed over: the row as it was when this worker leased it. */
export interface AdvanceInput {
  id: string;
  process: string;
  version: number;
  task: string;
  taskEpoch: number;
  retryCount: number;
  /** With externalised values resolved. */
  state: InstanceState;
  /** The previous lease expired without a write: the last attempt may have run. */
  reclaimed: boolean;
  previousOwner: string | null;
}

export interface AdvanceEnvironment {
  /** This process's worker id, recorded on task.started (which replica ran the action). */
  worker?: string;
  now(): number;
  random(): number;
  /** The `config` root; throws TaskFailure `engine.config` when a required setting is missing. */
  config(): { [key: string]: Json };
  fetch(task: CompiledTask, scope: Scope, taskEpoch: number): Promise<FetchResult>;
  /** The oldest signal buffered for `task` of this instance (external tasks check it when they arm). */
  peekSignal?(task: string): Promise<BufferedSignal | undefined>;
  /** Definitions and rows child tasks need; without it a child task fails with `engine.definition`. */
  children?: ChildEnvironment;
  /**
   * The evaluation budget of every template, shape and case this advance evaluates (the
   * server's `--limit-…` flags, docs/limits.md); the defaults where absent. Scopes carry this
   * object as it is: it must not change once given (the evaluator keeps what it read of it).
   */
  evalLimits?: Readonly<EvalLimits>;
  /** Turns a passed evaluation bound into the flag that sets it, for the engine.limit message. */
  limitFlag?: (error: ExprLimitError) => string;
  /** Children one task visit may start (--limit-children-per-visit); MAX_CHILDREN_PER_SPAWN where absent. */
  maxChildrenPerVisit?: number;
  /** Tasks entered in a row without waiting or calling out (--limit-entries-without-waiting); MAX_ENTRIES_WITHOUT_WAITING where absent. */
  maxEntriesWithoutWaiting?: number;
  /** Task epochs the visit journal records per instance (--limit-visits-recorded); MAX_VISITS_RECORDED where absent. */
  maxVisitsRecorded?: number;
  /** Characters of one visit record's values (--limit-visit-record-bytes); MAX_VISIT_RECORD_BYTES where absent. */
  maxVisitRecordBytes?: number;
}

export type AdvanceStatus = "running" | "completed" | "failed" | "raised";

export interface AdvanceResult {
  status: AdvanceStatus;
  task: string;
  taskEpoch: number;
  retryCount: number;
  state: InstanceState;
  /** Task ids whose `outputs` entry this advance wrote (only these need externalising). */
  written: Set<string>;
  errorCode: string | null;
  errorMessage: string | null;
  /** The process output, set when completed with one. */
  output?: Json;
  wakeAt: number | null;
  logs: EngineLog[];
  /** `external` while parked on an external task, `children` while its children run; null otherwise. */
  phase?: "external" | "children" | null;
  /** Children this advance spawned: inserted with its write, only if that write lands. */
  spawns?: ChildSpawn[];
  /** A new external park (its claim row is written with the advance), or "clear" when a park ended without a resolve. */
  externalWait?: ExternalPark | "clear";
  /** A buffered signal this advance consumed (deleted in the same write). */
  consumedSignal?: number;
  /** The task entries this advance made, for the visit journal (visits.ts); written with the advance. */
  visits?: VisitRecord[];
}

/** Appends one entry to the advance's log (`AdvanceResult.logs`). */
export type AdvanceLog = (
  level: LogLevel,
  event: string,
  message: string,
  task: string | null,
  data?: Record<string, Json>,
) => void;

/** One advance under way (advance.ts): what its steps read and change. */
export interface AdvanceRun {
  def: CompiledDefinition;
  env: AdvanceEnvironment;
  /** The state being advanced: `result.state`, changed in place. */
  state: InstanceState;
  result: AdvanceResult;
  log: AdvanceLog;
  /** The `config` root, read on the first task (env.config throws engine.config when it cannot be built). */
  config?: { [key: string]: Json };
  /**
   * The evaluation limits every scope carries: the runner's object, the same on every advance and
   * never changed, so the evaluator reads it once (limitsIn, @baton/expr budget.ts).
   */
  limits: Json | undefined;
  /** Task entries carried in from the checkpoints of a loop that neither waited nor called out. */
  entriesBefore: number;
  /** This advance ran an action: it checkpoints on entering the next action task. */
  ranAction: boolean;
  /** This advance called out (a fetch): a checkpoint then carries no entries on. */
  calledOut: boolean;
}
