import { readFile } from "node:fs/promises";
import path from "node:path";
import type { Json } from "@baton/expr";
import { CliError, UsageError } from "./cli-error.js";
import { ExitCode } from "./exit-code.js";
import { expandFileArguments } from "./file-patterns.js";
import { parseJsonText, parseYamlDocuments, type SourceProblem } from "./yaml-json.js";

/** One definition read from a file, with where it came from (for problem reports). */
export interface LoadedDefinition {
  file: string;
  /** "orders.yaml", "orders.yaml (document 2)" or "all.json [3]". */
  source: string;
  line?: number;
  definition: { [key: string]: Json };
  /** The definition's `name` when it is a string. */
  name?: string;
}

/**
 * Reads definitions from files, globs and directories: YAML (multi-document, anchors) or JSON
 * (by extension; other extensions are tried as YAML, which also accepts JSON). A document or
 * file holding an array contributes each element. Throws a CliError listing every problem.
 */
export async function loadDefinitions(args: string[], cwd: string): Promise<LoadedDefinition[]> {
  if (args.length === 0) throw new UsageError("no definition files given");
  const files = await expandFileArguments(args, cwd);
  const loaded: LoadedDefinition[] = [];
  const problems: string[] = [];
  for (const file of files) {
    let text: string;
    try {
      text = await readFile(path.resolve(cwd, file), "utf8");
    } catch (error) {
      throw new UsageError(`cannot read ${file}: ${(error as Error).message}`);
    }
    const result = parseDefinitionText(file, text);
    loaded.push(...result.definitions);
    problems.push(...result.problems);
  }
  if (problems.length > 0) {
    throw new CliError(
      problems[0],
      ExitCode.failed,
      problems.map((problem) => `error: ${problem}`),
    );
  }
  if (loaded.length === 0) throw new UsageError(`no definitions found in ${files.join(", ")}`);
  return loaded;
}

export function parseDefinitionText(
  file: string,
  text: string,
): { definitions: LoadedDefinition[]; problems: string[] } {
  const definitions: LoadedDefinition[] = [];
  const problems: string[] = [];
  const report = (problem: SourceProblem) =>
    problems.push(
      `${file}${problem.line ? `:${problem.line}${problem.column ? `:${problem.column}` : ""}` : ""}: ${problem.message}`,
    );

  let documents: { index: number; line?: number; value: Json }[];
  if (/\.json$/i.test(file)) {
    const parsed = parseJsonText(text);
    parsed.problems.forEach(report);
    documents = parsed.value === undefined ? [] : [{ index: 1, line: 1, value: parsed.value }];
  } else {
    const parsed = parseYamlDocuments(text);
    parsed.problems.forEach(report);
    documents = parsed.documents;
  }
  const multiDocument = documents.length > 1 || documents.some((document) => document.index > 1);
  for (const document of documents) {
    const where = multiDocument ? `${file} (document ${document.index})` : file;
    const items = Array.isArray(document.value) ? document.value : [document.value];
    items.forEach((item, i) => {
      const source = Array.isArray(document.value) ? `${where} [${i}]` : where;
      if (item === null || typeof item !== "object" || Array.isArray(item) || !isPlainObject(item)) {
        report({
          line: document.line,
          message: `${source === file ? "" : `${source.slice(file.length).trim()}: `}expected a process definition (an object with name and tasks), got ${describe(item)}`,
        });
        return;
      }
      const name = typeof item.name === "string" ? item.name : undefined;
      definitions.push({ file, source, line: document.line, definition: item, name });
    });
  }
  return { definitions, problems };
}

function isPlainObject(value: object): value is { [key: string]: Json } {
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

function describe(value: Json): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object") return "a number";
  return `a ${typeof value}`;
}
