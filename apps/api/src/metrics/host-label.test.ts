import { describe, expect, it } from "vitest";
import { boundedHostLabel } from "./host-label.js";

describe("boundedHostLabel", () => {
  it("names the first hosts and puts every later one under other", () => {
    const label = boundedHostLabel(2);
    expect(label("https://a.example/x?y=1")).toBe("a.example");
    expect(label("http://B.example:8080/")).toBe("b.example:8080");
    expect(label("https://c.example/")).toBe("other");
    expect(label("https://a.example/again")).toBe("a.example");
  });

  it("labels a URL that does not parse invalid", () => {
    const label = boundedHostLabel();
    expect(label("not a url")).toBe("invalid");
    expect(label(undefined)).toBe("invalid");
  });
});
