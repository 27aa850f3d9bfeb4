import { expect } from "vitest";
import { type DecodeContext, type Definition, type DefinitionProblem, decodeDefinition } from "../src/index.js";

/** A valid one-task definition to vary in tests. */
export function fetchDef(
  action: Record<string, unknown> = {},
  task: Record<string, unknown> = {},
  def: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    name: "p",
    tasks: [{ id: "call", action: { type: "fetch", url: "https://example.com/x", ...action }, ...task }],
    ...def,
  };
}

export function decoded(raw: unknown, ctx?: DecodeContext): Definition {
  const r = decodeDefinition(raw, ctx);
  if (!r.ok)
    throw new Error(
      `expected a valid definition, got:\n${r.problems.map((p) => `${p.path}: ${p.message}`).join("\n")}`,
    );
  return r.definition;
}

export function problemsOf(raw: unknown, ctx?: DecodeContext): DefinitionProblem[] {
  const r = decodeDefinition(raw, ctx);
  if (r.ok) throw new Error("expected problems, got a valid definition");
  return r.problems;
}

/** Asserts one problem at exactly `path` whose message contains `message`. */
export function expectProblem(problems: DefinitionProblem[], path: string, message: string): DefinitionProblem {
  const hit = problems.find((p) => p.path === path && p.message.includes(message));
  expect(
    hit,
    `no problem at ${path} containing "${message}" in:\n${problems.map((p) => `${p.path}: ${p.message}`).join("\n")}`,
  ).toBeDefined();
  return hit!;
}
