import { describe, expect, it } from "vitest";
import type { Db } from "./db.js";
import { lruCache, perDbCache } from "./per-db-cache.js";

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

describe("lruCache", () => {
  /** A cache of `bound` weight whose values weigh their length, and the keys it made, in order. */
  function lengths(bound: number) {
    const made: string[] = [];
    const cache = lruCache<string>({ bound: () => bound, weigh: (value) => value.length });
    const load = (key: string, value = key) =>
      cache.load(key, async () => {
        made.push(key);
        return value;
      });
    return { cache, made, load };
  }

  it("forgets a dropped entry and its weight, and makes it again on the next load", async () => {
    const { cache, made, load } = lengths(10);
    await load("aaaa");
    await load("bb");
    cache.drop("aaaa");
    expect(cache.keys()).toEqual(["bb"]);
    expect(cache.weight(), "the dropped entry's weight is gone").toBe(2);
    expect(await load("aaaa", "AAAA"), "made again, not served from before").toBe("AAAA");
    expect(made).toEqual(["aaaa", "bb", "aaaa"]);
    cache.drop("never-kept");
    expect(cache.weight()).toBe(6);
  });

  it("lets a make pending when its entry was dropped answer its callers without being counted", async () => {
    const { cache, load } = lengths(10);
    const pending = load("cccc");
    cache.drop("cccc");
    expect(await pending).toBe("cccc");
    expect(cache.keys()).toEqual([]);
    expect(cache.weight()).toBe(0);
  });

  it("drops the least recently used entries once the settled weight passes the bound", async () => {
    const { cache, load } = lengths(10);
    await load("aaaa");
    await load("bbbb");
    await load("aaaa"); // a is now the most recently used
    expect(cache.keys()).toEqual(["bbbb", "aaaa"]);
    await load("cccc");
    expect(cache.keys(), "b was used least recently").toEqual(["aaaa", "cccc"]);
    expect(cache.weight()).toBe(8);
  });

  it("never holds more than the bound, and serves but does not keep a value heavier than the bound", async () => {
    const { cache, load } = lengths(10);
    for (const key of ["aaa", "bbbbb", "cc", "dddd", "eeeeeee"]) {
      await load(key);
      expect(cache.weight()).toBeLessThanOrEqual(10);
    }
    expect(await load("x".repeat(11))).toBe("x".repeat(11));
    expect(cache.keys()).not.toContain("x".repeat(11));
    expect(cache.weight()).toBeLessThanOrEqual(10);
  });

  it("keeps the lighter entries when a value heavier than the bound is served", async () => {
    const { cache, load } = lengths(10);
    await load("aaaa");
    await load("bbbb");
    expect(await load("x".repeat(11))).toBe("x".repeat(11));
    expect(cache.keys()).toEqual(["aaaa", "bbbb"]);
    expect(cache.weight()).toBe(8);
  });

  it("keeps a value put at hand at once, as the most recently used, weighed and bounded like a loaded one", async () => {
    const { cache, made, load } = lengths(10);
    await load("aaaa");
    cache.put("bbbb", "bbbb");
    expect(cache.keys()).toEqual(["aaaa", "bbbb"]);
    expect(cache.weight(), "counted before any turn of the event loop").toBe(8);
    cache.put("bbbb", "BBBB");
    expect(await cache.get("bbbb"), "a kept key is not replaced").toBe("bbbb");
    cache.put("cccc", "cccc");
    expect(cache.keys(), "a was used least recently").toEqual(["bbbb", "cccc"]);
    cache.put("dddddddddddd", "dddddddddddd");
    expect(cache.keys(), "heavier than the bound: not kept").toEqual(["bbbb", "cccc"]);
    expect(made).toEqual(["aaaa"]);
  });

  it("makes a dropped entry again on its next use, with the same result", async () => {
    const { cache, made, load } = lengths(4);
    expect(await load("aaaa")).toBe("aaaa");
    await load("bbbb");
    expect(cache.keys()).toEqual(["bbbb"]);
    expect(await load("aaaa")).toBe("aaaa");
    expect(made).toEqual(["aaaa", "bbbb", "aaaa"]);
  });

  it("gives concurrent callers one pending promise, and never drops a pending entry", async () => {
    const cache = lruCache<string>({ bound: () => 0, weigh: (value) => value.length });
    let makes = 0;
    let release!: (value: string) => void;
    const make = () => {
      makes++;
      return new Promise<string>((resolve) => {
        release = resolve;
      });
    };
    const first = cache.load("k", make);
    await cache.load("other", async () => "other"); // settles past the bound 0: dropped at once
    const second = cache.load("k", make);
    expect(second).toBe(first);
    expect(makes).toBe(1);
    release("value");
    expect(await Promise.all([first, second])).toEqual(["value", "value"]);
    expect(cache.keys(), "a settled value past the bound is dropped").toEqual([]);
  });

  it("does not keep a failure: the next caller makes the entry again", async () => {
    const cache = lruCache<string>({ bound: () => 100, weigh: (value) => value.length });
    await expect(cache.load("k", async () => Promise.reject(new Error("database unavailable")))).rejects.toThrow(
      "database unavailable",
    );
    expect(cache.keys()).toEqual([]);
    expect(await cache.load("k", async () => "read")).toBe("read");
  });

  it("keeps a failure keepsFailure names, weighing 1, like a value", async () => {
    class Fault extends Error {}
    const cache = lruCache<string>({
      bound: () => 100,
      weigh: (value) => value.length,
      keepsFailure: (error) => error instanceof Fault,
    });
    const failed = cache.load("k", async () => Promise.reject(new Fault("cannot compile")));
    await expect(failed).rejects.toThrow("cannot compile");
    expect(cache.load("k", async () => "never made")).toBe(failed);
    expect(cache.weight()).toBe(1);
  });
});
