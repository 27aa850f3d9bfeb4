import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";

export interface CitationProblem {
  file: string;
  line: number;
  text: string;
  problem: string;
}

/** Names of the interface files outside the repository; a comment or a doc that cites them is not self-contained. */
const OUTSIDE = /\b(SPEC(?:\.md)?|DESIGN(?:\.md)?|LANGUAGE(?:\.md)?)\b(?:\s*§\s*[\d.]+|\s*"[^"]*"|'s)?/;
const CITATION = /docs\/([\w-]+\.md)(?: "([^"]+)")?/g;

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...sourceFiles(path));
    else if (/\.(ts|tsx)$/.test(name)) out.push(path);
  }
  return out;
}

/** The comment text of each line (`//` and block comments), by line number. */
function commentLines(text: string): Array<[number, string]> {
  const out: Array<[number, string]> = [];
  let inBlock = false;
  text.split("\n").forEach((line, i) => {
    let rest = line;
    if (inBlock) {
      const end = rest.indexOf("*/");
      out.push([i + 1, end < 0 ? rest : rest.slice(0, end)]);
      if (end < 0) return;
      inBlock = false;
      rest = rest.slice(end + 2);
    }
    const block = rest.indexOf("/*");
    const lineComment = rest.search(/(^|[^:"'`])\/\//);
    if (lineComment >= 0 && (block < 0 || lineComment < block)) out.push([i + 1, rest.slice(lineComment)]);
    else if (block >= 0) {
      const end = rest.indexOf("*/", block + 2);
      out.push([i + 1, end < 0 ? rest.slice(block) : rest.slice(block, end)]);
      if (end < 0) inBlock = true;
    }
  });
  return out;
}

/**
 * What a citation may name in a doc, lower-cased and without backticks: its headings, and the
 * bold lead of a paragraph or list item (`**Carried advances.** …`), which is how a doc names a
 * rule inside a section.
 */
function citableNames(text: string): string[] {
  const names: string[] = [];
  for (const line of text.split("\n")) {
    if (line.startsWith("#")) names.push(line.replace(/^#+\s*/, ""));
    const lead = /^(?:\s*[-*]\s+|\s*\d+\.\s+)?\*\*([^*]+?)\.?\*\*/.exec(line);
    if (lead) names.push(lead[1]!);
  }
  return names.map((n) => n.replaceAll("`", "").toLowerCase());
}

/**
 * Comments under `dirs` must cite the project's own docs/*.md, never the interface files outside
 * the repository (SPEC, DESIGN, LANGUAGE), and every `docs/x.md "Heading"` cited must exist.
 */
export function docCitationProblems(repoRoot: string, dirs: string[]): CitationProblem[] {
  const problems: CitationProblem[] = [];
  const headings = new Map<string, string[] | undefined>();
  const headingsOf = (doc: string) => {
    if (!headings.has(doc)) {
      try {
        const text = readFileSync(join(repoRoot, "docs", doc), "utf8");
        headings.set(doc, citableNames(text));
      } catch {
        headings.set(doc, undefined);
      }
    }
    return headings.get(doc);
  };
  for (const dir of dirs)
    for (const file of sourceFiles(join(repoRoot, dir))) {
      const rel = relative(repoRoot, file);
      for (const [line, comment] of commentLines(readFileSync(file, "utf8"))) {
        const outside = OUTSIDE.exec(comment);
        if (outside) problems.push({ file: rel, line, text: comment.trim(), problem: `cites ${outside[0]}` });
        for (const [, doc, heading] of comment.matchAll(CITATION)) {
          const known = headingsOf(doc);
          if (known === undefined)
            problems.push({ file: rel, line, text: comment.trim(), problem: `docs/${doc} does not exist` });
          else if (heading !== undefined && !known.some((h) => h.includes(heading.replaceAll("`", "").toLowerCase())))
            problems.push({
              file: rel,
              line,
              text: comment.trim(),
              problem: `docs/${doc} has no heading or bold rule name containing "${heading}"; cite one it has (quoted, backticks optional)`,
            });
        }
      }
    }
  return problems;
}

/**
 * The project's prose (`files`, Markdown) must stand alone: it states its rules itself and never
 * refers the reader to the interface files outside the repository (SPEC, DESIGN, LANGUAGE).
 */
export function docProseProblems(repoRoot: string, files: string[]): CitationProblem[] {
  const problems: CitationProblem[] = [];
  for (const file of files) {
    const lines = readFileSync(join(repoRoot, file), "utf8").split("\n");
    lines.forEach((text, i) => {
      const outside = OUTSIDE.exec(text.replace(/`[^`]*`/g, ""));
      if (outside) problems.push({ file, line: i + 1, text: text.trim(), problem: `cites ${outside[0]}` });
    });
  }
  return problems;
}
