// biome-ignore-all lint/suspicious/noTemplateCurlyInString: "${ }" is the definition language's interpolation
import { readdirSync, readFileSync } from "node:fs";
import { parseJson } from "@baton/expr";
import { describe, expect, it } from "vitest";
import { canonicalJson, definitionHash } from "./canonical.js";
import { decodeBatch } from "./decode/decode-batch.js";
import { decodeDefinition } from "./decode/decode-definition.js";
import { inferSchemas } from "./infer.js";
import { validateInput } from "./input.js";

const dir = new URL("./fixtures/", import.meta.url);
const fixtures = readdirSync(dir)
  .filter((f) => f.endsWith(".json"))
  .map((f) => ({ file: f, raw: parseJson(readFileSync(new URL(f, dir), "utf8")) }));
const names = fixtures.map((f) => (f.raw as { name: string }).name);
const ctx = { processExists: (n: string) => names.includes(n) };

describe("example definitions", () => {
  it.each(fixtures)("$file decodes without problems", ({ raw }) => {
    const r = decodeDefinition(raw, ctx);
    expect(r.ok ? [] : r.problems).toEqual([]);
  });

  it.each(fixtures)("$file: the canonical form decodes to itself", ({ raw }) => {
    const r = decodeDefinition(raw, ctx);
    if (!r.ok) throw new Error("fixture does not decode");
    const again = decodeDefinition(JSON.parse(canonicalJson(r.definition)), ctx);
    if (!again.ok) throw new Error(again.problems.map((p) => `${p.path}: ${p.message}`).join("\n"));
    expect(canonicalJson(again.definition), "re-putting a stored definition must not create a new version").toBe(
      canonicalJson(r.definition),
    );
    expect(definitionHash(again.definition)).toBe(definitionHash(r.definition));
  });

  it.each(fixtures)("$file: every task gets inferred schemas", ({ raw }) => {
    const r = decodeDefinition(raw, ctx);
    if (!r.ok) throw new Error("fixture does not decode");
    const v = inferSchemas(r.definition, 1);
    expect(Object.keys(v.tasks)).toEqual(r.definition.tasks.map((t) => t.id));
  });

  it("decodes all of them as one batch", () => {
    const r = decodeBatch(
      fixtures.map((f) => f.raw),
      { processExists: () => false },
    );
    expect(r.ok ? [] : r.problems).toEqual([]);
  });

  it("order-fulfilment conforms its input", () => {
    const r = decodeDefinition(fixtures.find((f) => f.file === "order-fulfilment.json")!.raw);
    if (!r.ok) throw new Error("fixture does not decode");
    expect(
      validateInput(r.definition, { order_id: "o1", customer: { email: "a@b.c", phone: "x" }, amount_cents: 1200 }),
    ).toEqual({
      ok: true,
      value: { order_id: "o1", customer: { email: "a@b.c" }, amount_cents: 1200, currency: "EUR", express: false },
    });
  });

  it("ship-order-lines types its fan-out element and tracking list", () => {
    const r = decodeDefinition(fixtures.find((f) => f.file === "ship-order-lines.json")!.raw, ctx);
    if (!r.ok) throw new Error("fixture does not decode");
    const v = inferSchemas(r.definition, 1);
    expect(v.tasks.ship_each.input).toMatchObject({
      type: "object",
      properties: { sku: { type: "string" }, position: { type: "integer" } },
    });
    expect(v.process_output).toMatchObject({ properties: { tracking: { type: "array", items: { type: "string" } } } });
  });

  it("the repository's examples/*.json decode as one batch", () => {
    const examplesDir = new URL("../../../examples/", import.meta.url);
    const raws = readdirSync(examplesDir)
      .filter((f) => f.endsWith(".json"))
      .map((f) => parseJson(readFileSync(new URL(f, examplesDir), "utf8")));
    expect(raws.length).toBeGreaterThan(0);
    const r = decodeBatch(raws);
    expect(r.ok ? [] : r.problems).toEqual([]);
  });

  it("examples/*.json that copy a fixture are identical to it", () => {
    const examplesDir = new URL("../../../examples/", import.meta.url);
    for (const f of readdirSync(examplesDir).filter((x) => fixtures.some((fx) => fx.file === x)))
      expect(readFileSync(new URL(f, examplesDir), "utf8"), `examples/${f} drifted from src/fixtures/${f}`).toBe(
        readFileSync(new URL(f, dir), "utf8"),
      );
  });
});
