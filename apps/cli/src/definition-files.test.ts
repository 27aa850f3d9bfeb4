import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { isLosslessNumber, stringifyJson } from "@baton/expr";
import { describe, expect, it } from "vitest";
import { loadDefinitions, parseDefinitionText } from "./definition-files.js";

describe("parseDefinitionText", () => {
  it("reads every document of a YAML stream, resolving anchors, aliases and merge keys", () => {
    const text = [
      "name: a",
      "tasks:",
      "  - id: call",
      "    action: &fetch {type: fetch, url: 'https://example.com', method: get}",
      "  - id: again",
      "    action: {<<: *fetch, method: post}",
      "---",
      "name: b",
      "tasks: [{id: only}]",
      "---",
    ].join("\n");
    const { definitions, problems } = parseDefinitionText("defs.yaml", text);
    expect(problems).toEqual([]);
    expect(definitions.map((d) => [d.source, d.name, d.line])).toEqual([
      ["defs.yaml (document 1)", "a", 1],
      ["defs.yaml (document 2)", "b", 8],
    ]);
    expect(definitions[0].definition.tasks).toEqual([
      { id: "call", action: { type: "fetch", url: "https://example.com", method: "get" } },
      { id: "again", action: { type: "fetch", url: "https://example.com", method: "post" } },
    ]);
  });

  it("keeps integers beyond 2^53 and long decimals exact, in YAML as in JSON", () => {
    const yaml = parseDefinitionText(
      "a.yaml",
      "name: a\nlimit: 12345678901234567890123\nrate: 0.1000000000000000000001\nsmall: 7\n",
    );
    const json = parseDefinitionText(
      "a.json",
      '{"name": "a", "limit": 12345678901234567890123, "rate": 0.1000000000000000000001, "small": 7}',
    );
    for (const { definitions } of [yaml, json]) {
      const definition = definitions[0].definition;
      expect(isLosslessNumber(definition.limit), "a float64 would round the integer").toBe(true);
      expect(stringifyJson(definition)).toBe(
        '{"name":"a","limit":12345678901234567890123,"rate":0.1000000000000000000001,"small":7}',
      );
      expect(definition.small).toBe(7);
    }
  });

  it("reports an alias to another document's anchor instead of throwing", () => {
    const { problems, definitions } = parseDefinitionText(
      "x.yaml",
      "name: a\nbase: &b {k: 1}\n---\nname: b\nextra: {<<: *b}\n",
    );
    expect(definitions.map((d) => d.name)).toEqual(["a"]);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^x\.yaml:\d+(:\d+)?: /);
  });

  it("takes each element of a top-level array as a definition", () => {
    const { definitions } = parseDefinitionText("all.json", '[{"name": "a", "tasks": []}, {"name": "b", "tasks": []}]');
    expect(definitions.map((d) => d.source)).toEqual(["all.json [0]", "all.json [1]"]);
  });

  it("reports YAML syntax errors with file, line and column", () => {
    const { problems } = parseDefinitionText("bad.yaml", "name: a\ntasks:\n  - id: x\n   bad: [\n");
    expect(problems.length).toBeGreaterThan(0);
    expect(problems[0]).toMatch(/^bad\.yaml:\d+:\d+: /);
  });

  it("reports JSON syntax errors with file and position", () => {
    const { problems } = parseDefinitionText("bad.json", '{"name": "a",\n  "tasks": [}\n');
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^bad\.json:2:\d+: /);
  });

  it("refuses a document that is not an object, saying what it got", () => {
    const { problems } = parseDefinitionText("list.yaml", "- a\n- b\n---\nname: ok\n");
    expect(problems).toEqual([
      "list.yaml:1: (document 1) [0]: expected a process definition (an object with name and tasks), got a string",
      "list.yaml:1: (document 1) [1]: expected a process definition (an object with name and tasks), got a string",
    ]);
  });

  it("refuses YAML values JSON cannot carry", () => {
    const { problems } = parseDefinitionText("inf.yaml", "name: a\nlimit: .inf\n");
    expect(problems).toEqual(["inf.yaml:1: document 1 at limit: Infinity is not a JSON number"]);
  });
});

describe("loadDefinitions", () => {
  it("reads files and globs in order and fails with every problem at once", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "baton-load-"));
    writeFileSync(path.join(dir, "a.yaml"), "name: a\ntasks: [{id: x}]\n");
    writeFileSync(path.join(dir, "b.json"), '{"name": "b", "tasks": [{"id": "y"}]}');
    const loaded = await loadDefinitions(["*.yaml", "b.json"], dir);
    expect(loaded.map((item) => item.name)).toEqual(["a", "b"]);

    writeFileSync(path.join(dir, "c.yaml"), "name: [\n");
    writeFileSync(path.join(dir, "d.json"), "{");
    await expect(loadDefinitions(["c.yaml", "d.json"], dir)).rejects.toMatchObject({
      exitCode: 1,
      lines: [expect.stringMatching(/^error: c\.yaml:/), expect.stringMatching(/^error: d\.json/)],
    });
  });

  it("says so when the files hold no definitions", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "baton-load-"));
    writeFileSync(path.join(dir, "empty.yaml"), "# nothing yet\n");
    await expect(loadDefinitions(["empty.yaml"], dir)).rejects.toMatchObject({
      exitCode: 2,
      message: "no definitions found in empty.yaml",
    });
  });
});
