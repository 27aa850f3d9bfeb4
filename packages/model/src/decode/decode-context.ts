import type { Definition, DefinitionProblem } from "../definition.js";

/** What registration knows beyond the document itself (LANGUAGE §2.6). */
export interface DecodeContext {
  /** Whether a process is registered; without it child names are not checked. */
  processExists?: (name: string) => boolean;
  /** Names registered together with this one: a child may name them. */
  batchNames?: readonly string[];
  /** The codes a registered process can raise (its summary `raises`); undefined when unknown. */
  processRaises?: (name: string) => string[] | undefined;
}

export type DecodeResult = { ok: true; definition: Definition } | { ok: false; problems: DefinitionProblem[] };
