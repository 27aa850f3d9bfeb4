import { describe, expect, it } from "vitest";
import { childRefs } from "./children.js";

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
