import { describe, expect, it } from "vitest";
import type { Db } from "./db.js";
import { perDbCache } from "./per-db-cache.js";

describe("perDbCache", () => {
  it("keeps one map per database handle, so two databases never share an entry", () => {
    const cacheOf = perDbCache<number>();
    const a = {} as Db;
    const b = {} as Db;
    cacheOf(a).set("1:p", 1);
    expect(cacheOf(a).get("1:p"), "the same handle finds its entry again").toBe(1);
    expect(
      cacheOf(b).get("1:p"),
      "another database with the same process name and version must not see it",
    ).toBeUndefined();
  });
});
