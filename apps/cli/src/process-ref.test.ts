import { describe, expect, it } from "vitest";
import { parseProcessRef } from "./process-ref.js";

describe("parseProcessRef", () => {
  it("reads PROCESS and PROCESS@VERSION", () => {
    expect(parseProcessRef("orders")).toEqual({ process: "orders" });
    expect(parseProcessRef("orders@3")).toEqual({ process: "orders", version: 3 });
    expect(parseProcessRef("orders@v3")).toEqual({ process: "orders", version: 3 });
  });

  it("reads PROCESS@CHANNEL when the suffix is a name", () => {
    expect(parseProcessRef("orders@production")).toEqual({ process: "orders", channel: "production" });
  });

  it.each(["orders@", "orders@0", "orders@-x", "@3", "orders@v0"])("refuses %s as a usage error", (text) => {
    expect(() => parseProcessRef(text)).toThrow(expect.objectContaining({ exitCode: 2 }));
  });
});
