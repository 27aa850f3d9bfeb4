import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { expandFileArguments, globToRegExp } from "./file-patterns.js";

describe("globToRegExp", () => {
  it.each([
    ["*.yaml", "orders.yaml", true],
    ["*.yaml", "defs/orders.yaml", false],
    ["**/*.yaml", "orders.yaml", true],
    ["**/*.yaml", "a/b/orders.yaml", true],
    ["defs/**", "defs/a/b.json", true],
    ["*.{yaml,yml}", "x.yml", true],
    ["*.{yaml,yml}", "x.json", false],
    ["order?.json", "orders.json", true],
    ["[ab].json", "b.json", true],
    ["[!ab].json", "c.json", true],
    ["a.b", "axb", false],
  ])("%s matches %s: %s", (glob, file, matches) => {
    expect(globToRegExp(glob).test(file)).toBe(matches);
  });
});

describe("expandFileArguments", () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), "baton-glob-"));
    mkdirSync(path.join(dir, "defs", "nested"), { recursive: true });
    mkdirSync(path.join(dir, "defs", "node_modules"), { recursive: true });
    for (const file of [
      "defs/b.yaml",
      "defs/a.yml",
      "defs/c.json",
      "defs/readme.md",
      "defs/nested/d.yaml",
      "defs/node_modules/x.yaml",
      "defs/.hidden.yaml",
    ]) {
      writeFileSync(path.join(dir, file), "name: x\n");
    }
  });

  it("expands a quoted glob in sorted order, relative to the working directory", async () => {
    expect(await expandFileArguments(["defs/*.y*ml"], dir)).toEqual(["defs/a.yml", "defs/b.yaml"]);
  });

  it("expands ** across directories but skips node_modules and dot files", async () => {
    expect(await expandFileArguments(["defs/**/*.yaml"], dir)).toEqual(["defs/b.yaml", "defs/nested/d.yaml"]);
  });

  it("takes a directory as every definition file below it", async () => {
    expect(await expandFileArguments(["defs"], dir)).toEqual([
      "defs/a.yml",
      "defs/b.yaml",
      "defs/c.json",
      "defs/nested/d.yaml",
    ]);
  });

  it("keeps argument order and drops duplicates", async () => {
    expect(await expandFileArguments(["defs/c.json", "defs/*.json", "defs/a.yml"], dir)).toEqual([
      "defs/c.json",
      "defs/a.yml",
    ]);
  });

  it("accepts an absolute glob", async () => {
    expect(await expandFileArguments([`${dir}/defs/*.json`], "/")).toEqual([`${dir}/defs/c.json`]);
  });

  it("refuses a glob without matches and a missing file as usage errors", async () => {
    await expect(expandFileArguments(["defs/*.toml"], dir)).rejects.toMatchObject({
      exitCode: 2,
      message: "no files match defs/*.toml",
    });
    await expect(expandFileArguments(["nope.yaml"], dir)).rejects.toMatchObject({
      exitCode: 2,
      message: "file not found: nope.yaml",
    });
  });
});
