import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parseSelector } from "./compat-selector.js";

describe("parseSelector", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "baton-selector-"));
  writeFileSync(path.join(dir, "orders.yaml"), "name: orders\ntasks: [{id: a}]\n");

  it("reads a bare name as a channel", async () => {
    expect(await parseSelector(["production"], "--from", dir)).toEqual({ channel: "production" });
  });

  it("reads NAME@VERSION pairs, comma-separated or repeated, with numbers or channel names", async () => {
    expect(await parseSelector(["orders@3,billing@staging", "invoice@2"], "--from", dir)).toEqual({
      versions: { orders: 3, billing: "staging", invoice: 2 },
    });
  });

  it("reads files and globs as unsaved definitions", async () => {
    expect(await parseSelector(["*.yaml"], "--to", dir)).toEqual({
      definitions: [{ name: "orders", tasks: [{ id: "a" }] }],
    });
    expect(await parseSelector(["orders.yaml"], "--to", dir)).toMatchObject({ definitions: [{ name: "orders" }] });
  });

  it("refuses mixtures, two channels and repeated processes as usage errors", async () => {
    await expect(parseSelector(["orders@3", "orders.yaml"], "--to", dir)).rejects.toMatchObject({
      exitCode: 2,
      message: expect.stringContaining("cannot mix"),
    });
    await expect(parseSelector(["production,staging"], "--to", dir)).rejects.toMatchObject({
      exitCode: 2,
      message: expect.stringContaining("one channel"),
    });
    await expect(parseSelector(["orders@3,orders@4"], "--to", dir)).rejects.toMatchObject({
      message: "--to: process orders is named twice",
    });
  });
});
