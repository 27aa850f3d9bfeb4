import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { stringifyJson } from "@baton/expr";
import { describe, expect, it } from "vitest";
import { buildInput } from "./input-values.js";

describe("buildInput", () => {
  it("is undefined without --input or --set", async () => {
    expect(await buildInput(undefined, [], "/")).toBeUndefined();
  });

  it("parses --input JSON losslessly", async () => {
    const input = await buildInput('{"id": 12345678901234567890, "ok": true}', [], "/");
    expect(stringifyJson(input)).toBe('{"id":12345678901234567890,"ok":true}');
  });

  it("reads --input @file relative to the working directory", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "baton-input-"));
    writeFileSync(path.join(dir, "in.json"), '{"a": 1}');
    expect(await buildInput("@in.json", [], dir)).toEqual({ a: 1 });
    await expect(buildInput("@missing.json", [], dir)).rejects.toThrow(
      "--input @missing.json: cannot read missing.json: no such file",
    );
  });

  it("applies --set on top: JSON values when they parse, strings otherwise, dotted keys nest", async () => {
    const input = await buildInput(
      '{"a": 1, "c": {"x": 1}}',
      ["a=2", "b=hello", "c.y=[1,2]", "d.e.f=null", 'g="7"'],
      "/",
    );
    expect(input).toEqual({ a: 2, b: "hello", c: { x: 1, y: [1, 2] }, d: { e: { f: null } }, g: "7" });
  });

  it("refuses input that is not an object, and malformed --set", async () => {
    await expect(buildInput("[1]", [], "/")).rejects.toThrow(/must be a JSON object/);
    await expect(buildInput("{", [], "/")).rejects.toThrow(/--input: invalid JSON/);
    await expect(buildInput(undefined, ["novalue"], "/")).rejects.toThrow(/expected key=value/);
    await expect(buildInput(undefined, ["a=1", "a.b=2"], "/")).rejects.toThrow(/"a" already holds a non-object value/);
  });
});
