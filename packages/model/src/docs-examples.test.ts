// Keeps docs/language.md true: every block it marks as a complete definition registers, every
// refused example fails with the message the page promises, the canonical form it shows is the
// stored one, and its builtin and schema-keyword tables match the implementation.
import { readFileSync } from "node:fs";
import { BUILTINS, type Json, parseJson } from "@baton/expr";
import { describe, expect, it } from "vitest";
import { canonicalJson } from "./canonical.js";
import type { DecodeContext } from "./decode/decode-context.js";
import { decodeDefinition } from "./decode/decode-definition.js";
import type { Definition } from "./definition.js";
import { formatProblems } from "./problems.js";
import { declaredRaises } from "./raises.js";
import { SCHEMA_KEYWORDS } from "./schema-subset.js";

const DOC_URL = new URL("../../../docs/language.md", import.meta.url);
const doc = readFileSync(DOC_URL, "utf8");
const lines = doc.split("\n");

interface Block {
  info: string;
  body: string;
  /** 1-based line of the opening fence. */
  line: number;
  /** The markdown between this block's closing fence and the next block's opening fence. */
  after: string;
}

function fencedBlocks(): Block[] {
  const blocks: Block[] = [];
  let open: { info: string; line: number; body: string[] } | undefined;
  let afterStart = -1;
  lines.forEach((text, i) => {
    if (open === undefined) {
      const m = /^```(.*)$/.exec(text);
      if (m === null) return;
      if (blocks.length > 0) blocks[blocks.length - 1].after = lines.slice(afterStart, i).join("\n");
      open = { info: m[1].trim(), line: i + 1, body: [] };
    } else if (/^```\s*$/.test(text)) {
      blocks.push({ info: open.info, body: open.body.join("\n"), line: open.line, after: "" });
      open = undefined;
      afterStart = i + 1;
    } else open.body.push(text);
  });
  if (open !== undefined) throw new Error(`docs/language.md: the block opened at line ${open.line} is never closed`);
  if (blocks.length > 0) blocks[blocks.length - 1].after = lines.slice(afterStart).join("\n");
  return blocks;
}

/** The message fragment a refused example promises: an `<!-- error: … -->` comment, else the first code span of the next paragraph. */
function expectedFragment(block: Block): string | undefined {
  const comment = /<!--\s*error:\s*([\s\S]*?)\s*-->/.exec(block.after);
  if (comment !== null) return comment[1];
  const paragraph = block.after.trim().split(/\n\s*\n/)[0] ?? "";
  return /`([^`]+)`/.exec(paragraph)?.[1];
}

function parse(block: Block): Json {
  try {
    return parseJson(block.body);
  } catch (e) {
    throw new Error(`docs/language.md line ${block.line}: the block is not JSON: ${(e as Error).message}`);
  }
}

function nameOf(raw: Json): string {
  return raw !== null &&
    typeof raw === "object" &&
    !Array.isArray(raw) &&
    typeof (raw as { name?: unknown }).name === "string"
    ? (raw as { name: string }).name
    : "?";
}

const blocks = fencedBlocks();
const definitions = blocks
  .filter((b) => b.info === "json definition")
  .map((b) => ({ block: b, raw: parse(b), name: "" }));
for (const d of definitions) d.name = nameOf(d.raw);
const refused = blocks.flatMap((b, i) => {
  if (b.info !== "json invalid-definition") return [];
  // The full message may be shown in a `text problems` block right after the example.
  const next = blocks[i + 1];
  const shown = next?.info === "text problems" ? next : undefined;
  return [{ block: b, raw: parse(b), name: nameOf(parse(b)), shown }];
});

// What the server knows when these definitions are registered together: each other's names
// (children name other processes of the page) and the codes each can raise.
const names = definitions.map((d) => d.name);
const raises = new Map<string, string[]>();
for (const d of definitions) {
  const r = decodeDefinition(d.raw, { processExists: (n) => names.includes(n) });
  if (r.ok) raises.set(d.name, declaredRaises(r.definition));
}
const ctx: DecodeContext = { processExists: (n) => names.includes(n), processRaises: (n) => raises.get(n) };

function lineOf(block: Block): string {
  return `docs/language.md line ${block.line}`;
}

/** The rows of the markdown table that follows `heading`, as cells (`\|` unescaped). */
function tableAfter(heading: string): string[][] {
  const start = lines.findIndex((l) => l.trim() === heading);
  if (start === -1) throw new Error(`docs/language.md has no heading "${heading}"`);
  const rows: string[][] = [];
  for (let i = start + 1; i < lines.length && !/^#/.test(lines[i]); i++) {
    const l = lines[i].trim();
    if (!l.startsWith("|")) {
      if (rows.length > 0) break;
      continue;
    }
    if (/^\|[\s|:-]+\|$/.test(l)) continue;
    rows.push(
      l
        .slice(1, -1)
        .split(/(?<!\\)\|/)
        .map((c) => c.trim().replace(/\\\|/g, "|")),
    );
  }
  return rows.slice(1);
}

const unquote = (cell: string) => cell.replace(/^`(.*)`$/, "$1");

describe("docs/language.md", () => {
  it("marks complete definitions and refused examples (the extractor finds them)", () => {
    expect(definitions.length).toBeGreaterThanOrEqual(5);
    expect(refused.length).toBeGreaterThanOrEqual(10);
    expect(new Set(names).size, "each complete definition has its own name").toBe(names.length);
  });

  it.each(definitions.map((d) => ({ ...d, at: lineOf(d.block) })))(
    "every complete definition in docs/language.md registers: $name ($at)",
    ({ raw, at }) => {
      const r = decodeDefinition(raw, ctx);
      expect(r.ok ? "" : formatProblems(r.problems), `${at} should register`).toBe("");
    },
  );

  it.each(definitions.map((d) => ({ ...d, at: lineOf(d.block) })))(
    "every complete definition's stored form registers again unchanged: $name ($at)",
    ({ raw }) => {
      const r = decodeDefinition(raw, ctx);
      if (!r.ok) throw new Error(formatProblems(r.problems));
      const again = decodeDefinition(parseJson(canonicalJson(r.definition)), ctx);
      if (!again.ok) throw new Error(formatProblems(again.problems));
      expect(canonicalJson(again.definition)).toBe(canonicalJson(r.definition));
    },
  );

  it.each(refused.map((d) => ({ ...d, at: lineOf(d.block) })))(
    "every refused example in docs/language.md fails with the message it shows: $name ($at)",
    ({ block, raw, shown, at }) => {
      const fragment = expectedFragment(block);
      expect(
        fragment,
        `${at}: a refused example needs <!-- error: … --> or a paragraph with the message in backticks after it`,
      ).toBeDefined();
      const r = decodeDefinition(raw, ctx);
      if (r.ok) throw new Error(`${at}: expected the definition to be refused, but it registers`);
      const messages = r.problems.map((p) => p.message);
      expect(
        messages.some((m) => m.includes(fragment!)),
        `${at}: no problem contains "${fragment}"; got:\n${formatProblems(r.problems)}`,
      ).toBe(true);
      if (shown !== undefined)
        expect(formatProblems(r.problems), `${lineOf(shown)} shows other problems than registration reports`).toBe(
          shown.body,
        );
    },
  );

  it("shows the stored form of the canonical example exactly", () => {
    const pairs = blocks.flatMap((b, i) =>
      b.info === "json canonical"
        ? [
            {
              canonical: b,
              written: blocks
                .slice(0, i)
                .reverse()
                .find((x) => x.info === "json definition"),
            },
          ]
        : [],
    );
    expect(pairs.length).toBeGreaterThan(0);
    for (const { canonical, written } of pairs) {
      expect(written, `${lineOf(canonical)}: a canonical block must follow a complete definition`).toBeDefined();
      const r = decodeDefinition(parse(written!), ctx);
      if (!r.ok) throw new Error(formatProblems(r.problems));
      expect(
        canonicalJson(parse(canonical) as unknown as Definition),
        `${lineOf(canonical)} differs from the stored form`,
      ).toBe(canonicalJson(r.definition));
    }
  });

  it("lists every builtin with the signature and description of the BUILTINS table", () => {
    const rows = tableAfter("### Builtins").map(([name, signature, description]) => ({
      name: unquote(name),
      signature: unquote(signature),
      description,
    }));
    expect(rows).toEqual(
      Object.entries(BUILTINS).map(([name, b]) => ({ name, signature: b.signature, description: b.description })),
    );
  });

  it("lists exactly the schema keywords the subset accepts", () => {
    const listed = tableAfter("## Schemas").flatMap(([keywords]) =>
      [...keywords.matchAll(/`([^`]+)`/g)].map((m) => m[1]),
    );
    expect([...listed].sort()).toEqual([...SCHEMA_KEYWORDS].sort());
  });
});
