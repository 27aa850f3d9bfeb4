import { describe, expect, it } from "vitest";
import {
  type ChildFacts,
  childMatches,
  childRefs,
  orderChildren,
  spliceChildren,
  storedChildRefs,
  storedRef,
} from "./children.js";

describe("childRefs", () => {
  it("reads single children, lists in order and maps by key", () => {
    expect(childRefs({ one: "c1", many: ["c2", "c3"], keyed: { eu: "c4" } })).toEqual([
      { task: "one", key: null, id: "c1" },
      { task: "many", key: "0", id: "c2" },
      { task: "many", key: "1", id: "c3" },
      { task: "keyed", key: "eu", id: "c4" },
    ]);
  });

  it("yields nothing for a missing or malformed map", () => {
    expect(childRefs(undefined)).toEqual([]);
    expect(childRefs(["x"])).toEqual([]);
    expect(childRefs({ t: 3 })).toEqual([]);
  });
});

const REF_A = "a".repeat(64);
const REF_B = "b".repeat(64);

describe("stored child lists", () => {
  it("recognises only the exact placeholder {$ref: <64 hex>}", () => {
    expect(storedRef({ $ref: REF_A })).toBe(REF_A);
    for (const other of [{ $ref: "short" }, { $ref: REF_A, extra: 1 }, [REF_A], REF_A, null, { eu: REF_A }])
      expect(storedRef(other), JSON.stringify(other)).toBeNull();
  });

  it("never reads a placeholder as a child_map with the key $ref (it would link a hash as a child id)", () => {
    expect(childRefs({ each: { $ref: REF_A }, one: "c1" })).toEqual([{ task: "one", key: null, id: "c1" }]);
    expect(childRefs({ $ref: REF_A }), "the whole _children stored apart").toEqual([]);
  });

  it("names the objects to fetch: a task's list or map, or the whole _children", () => {
    expect(storedChildRefs({ each: { $ref: REF_A }, keyed: { $ref: REF_B }, one: "c1" })).toEqual([REF_A, REF_B]);
    expect(storedChildRefs({ $ref: REF_A })).toEqual([REF_A]);
    expect(storedChildRefs({ one: "c1", many: ["c2"] })).toEqual([]);
    expect(storedChildRefs(undefined)).toEqual([]);
  });

  it("splices the fetched lists back, so the tree lists the children in order", () => {
    const loaded = new Map<string, unknown>([
      [REF_A, ["c2", "c3"]],
      [REF_B, { one: "c1", keyed: { eu: "c4" } }],
    ]);
    expect(childRefs(spliceChildren({ each: { $ref: REF_A } }, loaded))).toEqual([
      { task: "each", key: "0", id: "c2" },
      { task: "each", key: "1", id: "c3" },
    ]);
    expect(childRefs(spliceChildren({ $ref: REF_B }, loaded)), "a whole stored _children").toEqual([
      { task: "one", key: null, id: "c1" },
      { task: "keyed", key: "eu", id: "c4" },
    ]);
    expect(
      spliceChildren({ each: { $ref: "c".repeat(64) } }, loaded),
      "an object not fetched stays a placeholder",
    ).toEqual({ each: { $ref: "c".repeat(64) } });
  });
});

describe("ordering and filtering children", () => {
  const child = (id: string, status?: string, error_code?: string): ChildFacts => ({
    ref: { task: "each", key: id, id: `id-${id}` },
    view: status ? { process: "leaf", status, task: "wait", error_code } : undefined,
  });
  const ids = (children: ChildFacts[]) => children.map((c) => c.ref.key);
  const kids = [
    child("0", "completed"),
    child("1", "running"),
    child("2", "failed", "pre.error"),
    child("3"),
    child("4", "raised", "declined"),
    child("5", "failed", "http.503"),
  ];

  it("keeps the spawn order, or puts failed and raised children first, ties in spawn order", () => {
    expect(ids(orderChildren(kids, "spawn"))).toEqual(["0", "1", "2", "3", "4", "5"]);
    expect(ids(orderChildren(kids, "status"))).toEqual(["2", "5", "4", "1", "0", "3"]);
  });

  it("orders by error code, children with one first", () => {
    expect(ids(orderChildren(kids, "error"))).toEqual(["4", "5", "2", "0", "1", "3"]);
  });

  it("matches the filter text against the place, id, process, status, task and error code", () => {
    const matching = (text: string) => ids(kids.filter((c) => childMatches(c, text)));
    expect(matching("")).toEqual(["0", "1", "2", "3", "4", "5"]);
    expect(matching("HTTP.5")).toEqual(["5"]);
    expect(matching("failed")).toEqual(["2", "5"]);
    expect(matching("each[3]")).toEqual(["3"]);
    expect(matching("id-4")).toEqual(["4"]);
    expect(matching("nothing like it")).toEqual([]);
  });
});
