import { type Json, LosslessNumber, parseJson, stringifyJson } from "@baton/expr";
import { freshPgliteDir } from "@baton/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClock } from "../clock.js";
import { type Database, openDatabase } from "./db.js";
import { objects } from "./schema/index.js";
import { externalize, isPlaceholder, jsonSize, listRefs, planExternalize, refOf, resolveRefs } from "./objects.js";

const blob = (bytes: number) => "x".repeat(bytes);

describe("jsonSize", () => {
  it("equals the UTF-8 byte length of stringifyJson for every kind of value", () => {
    const samples: Json[] = [
      null,
      true,
      false,
      0,
      -1.5e-7,
      "",
      'héllo "quoted" \n ✓ 😀',
      new LosslessNumber("123456789012345678901234567890.000000001"),
      [],
      {},
      [1, "a", null, [true, {}]],
      { "k ey": { nested: [1, 2, { ü: "ß" }] }, b: new LosslessNumber("1e400") },
    ];
    for (const value of samples)
      expect(jsonSize(value), stringifyJson(value)).toBe(Buffer.byteLength(stringifyJson(value)));
  });
});

describe("planExternalize", () => {
  it("leaves a value under the threshold untouched and plans nothing", () => {
    const state = { input: { a: 1 }, outputs: { t: "small" }, _children: {} };
    const plan = planExternalize(state, 2048);
    expect(plan.value).toEqual(state);
    expect(plan.objects).toEqual([]);
  });

  it("stores a big task output whole under its own path, keyed by the sha256 of its JSON text", () => {
    const big = Array.from({ length: 100 }, (_, i) => ({ i, pad: blob(40) }));
    const plan = planExternalize({ input: {}, outputs: { small: 1, big }, _children: {} }, 2048);
    const text = stringifyJson(big);
    expect(plan.objects).toEqual([{ ref: refOf(text), text, size: Buffer.byteLength(text) }]);
    expect(listRefs(plan.value)).toEqual([{ path: ["outputs", "big"], ref: refOf(text) }]);
    expect((plan.value as any).outputs.small).toBe(1);
  });

  it("stores medium outputs one by one, largest first, until the container fits", () => {
    const outputs = { a: blob(1200), b: blob(1300), c: blob(1100), d: "tiny" };
    const plan = planExternalize({ input: {}, outputs, _children: {} }, 2048);
    const paths = listRefs(plan.value).map((r) => r.path.join("."));
    expect(paths.sort(), "largest first, stop once it fits").toEqual(["outputs.a", "outputs.b"]);
    expect((plan.value as any).outputs.c).toBe(outputs.c);
    expect(jsonSize(plan.value)).toBeLessThanOrEqual(2048);
  });

  it("never replaces the root value, even when it cannot be made to fit", () => {
    const many = Object.fromEntries(Array.from({ length: 400 }, (_, i) => [`k${i}`, i]));
    const plan = planExternalize(many, 100);
    expect(plan.value).toEqual(many);
    expect(plan.objects).toEqual([]);
    const text = blob(5000);
    expect(planExternalize(text, 100).value).toBe(text);
  });

  it("stores a nested container of many small members whole instead of member by member", () => {
    const children = Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`t${i}`, `id-${i}`]));
    const plan = planExternalize({ input: {}, outputs: {}, _children: children }, 1024);
    expect(listRefs(plan.value).map((r) => r.path)).toEqual([["_children"]]);
    expect(plan.objects).toHaveLength(1);
    expect(parseJson(plan.objects[0]!.text)).toEqual(children);
  });

  it("stores an identical value once even when it occurs twice", () => {
    const big = { data: blob(3000) };
    const plan = planExternalize({ outputs: { a: big, b: big } }, 2048);
    expect(plan.objects).toHaveLength(1);
    expect(listRefs(plan.value)).toHaveLength(2);
  });

  it("keeps placeholders already in the value and never nests them inside stored objects", () => {
    const existing = { $ref: "a".repeat(64) };
    const plan = planExternalize({ outputs: { old: existing, fresh: { data: blob(3000) } } }, 2048);
    expect((plan.value as any).outputs.old).toEqual(existing);
    for (const o of plan.objects) expect(listRefs(parseJson(o.text)), "objects hold plain data").toEqual([]);
  });

  it("never stores a container that holds placeholders, so objects never nest refs", async () => {
    // An engine state as stored: earlier outputs already externalized, one new medium output.
    const outputs: Record<string, Json> = {};
    for (let i = 0; i < 40; i++) outputs[`t${i}`] = { $ref: refOf(String(i)) };
    outputs.fresh = { wrapped: { $ref: refOf("x") }, pad: blob(800) };
    outputs.fresh2 = blob(600);
    const plan = planExternalize({ input: {}, outputs, _children: {} }, 2048);
    for (const o of plan.objects) expect(listRefs(parseJson(o.text)), o.text.slice(0, 40)).toEqual([]);
    expect(listRefs(plan.value).map((r) => r.path.join("."))).toContain("outputs.fresh2");
    expect((plan.value as any).outputs.fresh.wrapped, "the container with a placeholder stays inline").toEqual({
      $ref: refOf("x"),
    });
  });

  it("preserves exact numbers inside stored objects", () => {
    const exact = new LosslessNumber("12345678901234567890.12345678901234567890");
    const rows = Array.from({ length: 100 }, () => ({ n: exact }));
    const plan = planExternalize({ outputs: { rows } }, 2048);
    expect(plan.objects).toHaveLength(1);
    expect(plan.objects[0]!.text).toContain("12345678901234567890.12345678901234567890");
  });
});

describe("isPlaceholder", () => {
  it("accepts exactly {$ref: 64 lower-case hex}", () => {
    expect(isPlaceholder({ $ref: "0".repeat(64) })).toBe(true);
    expect(isPlaceholder({ $ref: "0".repeat(63) })).toBe(false);
    expect(isPlaceholder({ $ref: "G".repeat(64) })).toBe(false);
    expect(isPlaceholder({ $ref: "0".repeat(64), other: 1 })).toBe(false);
    expect(isPlaceholder(["$ref"])).toBe(false);
  });
});

describe("externalize and resolveRefs on a database", () => {
  let database: Database;
  beforeAll(async () => {
    database = await openDatabase({ dataDir: await freshPgliteDir() });
  });
  afterAll(async () => {
    await database?.close();
  });

  it("round-trips a state through the objects table, inserting a repeated value only once", async () => {
    const clock = createClock(() => 1_700_000_000_000);
    const big = {
      rows: Array.from({ length: 50 }, (_, i) => ({ i, n: new LosslessNumber("0.10000000000000000001") })),
    };
    const state: Json = { input: { q: 1 }, outputs: { big }, _children: {} };
    const stored = await database.db.transaction((tx) => externalize(tx, clock, state, 512));
    const again = await database.db.transaction((tx) => externalize(tx, clock, state, 512));
    expect(again).toEqual(stored);
    const rows = await database.db.select().from(objects);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.createdAt).toBe(1_700_000_000_000);
    const resolved = await resolveRefs(database.db, stored);
    expect(stringifyJson(resolved)).toBe(stringifyJson(state));
  });

  it("leaves a placeholder-shaped value with no stored object as it is", async () => {
    const lookalike = { user: { $ref: "f".repeat(64) } };
    expect(await resolveRefs(database.db, lookalike)).toEqual(lookalike);
  });
});
