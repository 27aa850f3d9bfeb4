import type { LoadedDefinition } from "./definition-files.js";

/** A field problem from the server, located in the user's files. */
export interface LocatedProblem {
  source?: string;
  process?: string;
  task?: string;
  field: string;
  message: string;
}

/** Splits a field path in any of the forms a server may use: "[0].tasks[2].id", "0.tasks.2", "/0/tasks/2", or an array. */
export function pathSegments(path: unknown): string[] {
  if (Array.isArray(path)) return path.map(String);
  const text = String(path ?? "");
  if (text.startsWith("/")) {
    return text
      .slice(1)
      .split("/")
      .filter((segment) => segment !== "")
      .map((segment) => segment.replace(/~1/g, "/").replace(/~0/g, "~"));
  }
  const segments: string[] = [];
  const token = /\[(\d+)\]|\["((?:[^"\\]|\\.)*)"\]|\['([^']*)'\]|([^.[\]]+)/g;
  for (let match = token.exec(text); match; match = token.exec(text)) {
    segments.push(match[1] ?? match[2] ?? match[3] ?? match[4]);
  }
  return segments;
}

export function formatSegments(segments: string[]): string {
  let out = "";
  for (const segment of segments) {
    if (/^\d+$/.test(segment)) out += `[${segment}]`;
    else if (/^[A-Za-z_$][\w$-]*$/.test(segment)) out += out ? `.${segment}` : segment;
    else out += `[${JSON.stringify(segment)}]`;
  }
  return out;
}

const CONTAINER_SEGMENTS = new Set(["body", "definitions"]);

/**
 * Locates a field problem of a request that carried `loaded` (in order) as an array, either
 * the body itself (validate) or under `definitions` (batch deploy). A single definition sent on
 * its own (put) has paths relative to it.
 */
export function locateProblem(
  loaded: LoadedDefinition[],
  field: { path: unknown; message: string },
  sentAsArray: boolean,
): LocatedProblem {
  let segments = pathSegments(field.path);
  while (segments.length > 0 && CONTAINER_SEGMENTS.has(segments[0])) segments = segments.slice(1);
  let definition: LoadedDefinition | undefined;
  if (sentAsArray && segments.length > 0 && /^\d+$/.test(segments[0])) {
    definition = loaded[Number(segments[0])];
    if (definition) segments = segments.slice(1);
  } else if (!sentAsArray || loaded.length === 1) {
    definition = loaded[0];
  }
  let task: string | undefined;
  if (definition && segments[0] === "tasks" && segments[1] !== undefined && /^\d+$/.test(segments[1])) {
    const tasks = definition.definition.tasks;
    const entry = Array.isArray(tasks) ? tasks[Number(segments[1])] : undefined;
    const id = entry && typeof entry === "object" && !Array.isArray(entry) ? (entry as { id?: unknown }).id : undefined;
    task = typeof id === "string" ? id : `#${segments[1]}`;
  }
  return {
    source: definition?.source,
    process: definition?.name,
    task,
    field: formatSegments(segments),
    message: field.message,
  };
}

export function formatLocatedProblem(problem: LocatedProblem): string {
  const parts: string[] = [];
  if (problem.source) parts.push(problem.source);
  if (problem.process) parts.push(`process ${problem.process}`);
  if (problem.task) parts.push(`task ${problem.task}`);
  if (problem.field) parts.push(`field ${problem.field}`);
  // The server's message may open with the task it is about; the location above names it already.
  const message = problem.task
    ? withoutPrefix(problem.message, `task ${JSON.stringify(problem.task)}: `)
    : problem.message;
  return `${parts.length > 0 ? `${parts.join(", ")}: ` : ""}${message}`;
}

function withoutPrefix(text: string, prefix: string): string {
  return text.startsWith(prefix) ? text.slice(prefix.length) : text;
}
