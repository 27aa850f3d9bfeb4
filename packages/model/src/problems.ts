import type { DefinitionProblem } from "./definition.js";

/** Collects problems while decoding; never throws, so one pass reports everything. */
export interface ProblemSink {
  readonly problems: DefinitionProblem[];
  process?: string;
  add(path: string, message: string, task?: string): void;
}

export function problemSink(process?: string): ProblemSink {
  const sink: ProblemSink = {
    problems: [],
    process,
    add(path, message, task) {
      const p: DefinitionProblem = { path, message };
      if (sink.process !== undefined) p.process = sink.process;
      if (task !== undefined) p.task = task;
      sink.problems.push(p);
    },
  };
  return sink;
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_]*$/;

/** `a` + `b` → `a.b`; keys that are not identifiers use `a["b-c"]`; indexes use `a[0]`. */
export function joinPath(base: string, key: string | number): string {
  if (typeof key === "number") return `${base}[${key}]`;
  if (IDENTIFIER.test(key)) return base === "" ? key : `${base}.${key}`;
  return `${base}[${JSON.stringify(key)}]`;
}

/** One sentence per problem, one per line: `process "p": tasks[2].on_error[0] (task "charge"): unknown field "retires"`. */
export function formatProblems(problems: DefinitionProblem[]): string {
  return problems.map(formatProblem).join("\n");
}

function formatProblem(p: DefinitionProblem): string {
  let where = p.process !== undefined ? `process "${p.process}"` : "";
  const at = p.task !== undefined ? `${p.path} (task "${p.task}")` : p.path;
  if (at !== "") where = where === "" ? at : `${where}: ${at}`;
  return where === "" ? p.message : `${where}: ${p.message}`;
}
