import { describe, expect, it } from "vitest";
import { boundedHostLabel, boundedProcessLabel } from "./host-label.js";

describe("boundedHostLabel", () => {
  it("names the first hosts and puts every later one under other", () => {
    const label = boundedHostLabel(2);
    expect(label(new URL("https://a.example/x?y=1").host)).toBe("a.example");
    expect(label(new URL("http://B.example:8080/").host)).toBe("b.example:8080");
    expect(label("c.example")).toBe("other");
    expect(label("A.example")).toBe("a.example");
  });

  it("labels an empty host invalid", () => {
    expect(boundedHostLabel()("")).toBe("invalid");
  });
});

describe("boundedProcessLabel", () => {
  it("names the first processes and puts every later one under other, as the host label does", () => {
    const label = boundedProcessLabel(2);
    expect(label("orders")).toBe("orders");
    expect(label("refunds")).toBe("refunds");
    expect(label("payouts")).toBe("other");
    expect(label("orders")).toBe("orders");
  });
});
