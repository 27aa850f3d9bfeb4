import type { Definition, DefinitionProblem } from "../definition.js";
import type { DefinitionLimits } from "../limits.js";

/** What registration knows beyond the document itself (docs/language.md "Common registration errors"). */
export interface DecodeContext {
  /** Whether a process is registered; without it child names are not checked. */
  processExists?: (name: string) => boolean;
  /** Names registered together with this one: a child may name them. */
  batchNames?: readonly string[];
  /** The codes a registered process can raise (its summary `raises`); undefined when unknown. */
  processRaises?: (name: string) => string[] | undefined;
  /** Bounds on the definition and on checking it (the server's flags); DEFAULT_DEFINITION_LIMITS where absent. */
  limits?: Partial<DefinitionLimits>;
}

export type DecodeResult = { ok: true; definition: Definition } | { ok: false; problems: DefinitionProblem[] };
