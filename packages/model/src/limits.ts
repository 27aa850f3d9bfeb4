// Bounds on what registration accepts and on the work of checking it (docs/limits.md). Each
// has a server flag; the decoder receives them in DecodeContext.limits, and these defaults
// apply where none is given. A definition past a bound is refused with a problem naming it.

export interface DefinitionLimits {
  /** Tasks in one definition. */
  maxTasks: number;
  /** Nesting depth of the definition's JSON (objects and arrays), schemas and shapes included. */
  maxDepth: number;
  /** Characters of the definition written as JSON (what a request body carries). */
  maxBytes: number;
  /** Characters of one on_error code pattern. */
  maxPatternLength: number;
  /** Code patterns of one task, over all its on_error rules. */
  maxPatternsPerTask: number;
  /** Schema nodes (objects and arrays) of one inferred type written out. */
  maxTypeNodes: number;
  /** Nesting levels of one inferred type. */
  maxTypeDepth: number;
  /** Schema nodes of all inferred types of a definition together (the checker's work budget). */
  maxCheckNodes: number;
  /** Pattern-against-pattern and pattern-against-code comparisons of one definition (shadowing, child codes). */
  maxPatternChecks: number;
  /** Work steps of comparing two versions for upgrade (compat/budget.ts): past it CompatTooLarge. */
  maxCompatSteps: number;
  /** The largest `limit` a concurrency or rate_limit may declare (docs/flow-control.md). */
  maxFlowLimit: number;
}

export const DEFAULT_DEFINITION_LIMITS: Readonly<DefinitionLimits> = Object.freeze({
  maxTasks: 10_000,
  maxDepth: 64,
  maxBytes: 4 * 1024 * 1024,
  maxPatternLength: 256,
  maxPatternsPerTask: 100,
  maxTypeNodes: 20_000,
  maxTypeDepth: 128,
  maxCheckNodes: 2_000_000,
  maxPatternChecks: 1_000_000,
  maxCompatSteps: 3_000_000,
  maxFlowLimit: 10_000,
});

export function definitionLimits(given: Partial<DefinitionLimits> | undefined): DefinitionLimits {
  return { ...DEFAULT_DEFINITION_LIMITS, ...given };
}
