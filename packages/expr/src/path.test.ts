import { describe, expect, it } from "vitest";
import { joinIndex, joinKey } from "./path.js";

describe("shape paths", () => {
  it("joins plain names with dots and other keys in brackets", () => {
    expect(joinKey("", "body")).toBe("body");
    expect(joinKey("body", "items")).toBe("body.items");
    expect(joinKey("headers", "X-Api-Key")).toBe('headers["X-Api-Key"]');
    expect(joinKey("", "a b")).toBe('["a b"]');
    expect(joinIndex("body.items", 2)).toBe("body.items[2]");
  });
});
