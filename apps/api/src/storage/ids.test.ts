import { describe, expect, it } from "vitest";
import { newId } from "./ids.js";

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe("newId", () => {
  it("makes UUIDv7 strings that sort in creation order, also many within one millisecond", () => {
    const ids: string[] = [];
    const t = Date.now() + 60_000;
    for (let i = 0; i < 5_000; i++) ids.push(newId(t));
    for (let i = 0; i < 5_000; i++) ids.push(newId(t + 1 + Math.floor(i / 100)));
    for (const id of ids) expect(id, "every id must be a well-formed UUIDv7").toMatch(UUID_V7);
    const sorted = [...ids].sort();
    expect(sorted, "lists sort newest-first by id: ids from one process must increase strictly").toEqual(ids);
    expect(new Set(ids).size, "ids are primary keys: no two may be equal").toBe(ids.length);
  });

  it("carries the millisecond in its first 48 bits", () => {
    const t = Date.now() + 3_600_000;
    const id = newId(t);
    expect(Number.parseInt(id.replace(/-/g, "").slice(0, 12), 16)).toBe(t);
  });

  it("keeps increasing when the clock steps back", () => {
    const t = Date.now() + 7_200_000;
    const later = newId(t);
    const earlier = newId(t - 5_000);
    expect(earlier > later, "a clock step back must not produce an id that sorts before an older one").toBe(true);
  });

  it("does not repeat random bits across ids (the pool is consumed, not reused)", () => {
    const tails = new Set<string>();
    for (let i = 0; i < 2_000; i++) tails.add(newId().slice(-12));
    expect(tails.size).toBe(2_000);
  });
});
