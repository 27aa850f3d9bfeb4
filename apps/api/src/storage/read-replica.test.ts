import { describe, expect, it } from "vitest";
import { stalenessOf, walPosition } from "./read-replica.js";

describe("the read replica's staleness bound", () => {
  it("orders WAL positions across the 32-bit boundary", () => {
    expect(walPosition("0/FFFFFFFF") < walPosition("1/0")).toBe(true);
    expect(walPosition("16/B374D848")).toBe((0x16n << 32n) + 0xb374d848n);
  });

  it("is the time since the newest primary position the replica has replayed", () => {
    const samples = [
      { at: 1000, position: 100n },
      { at: 1500, position: 200n },
      { at: 2000, position: 300n },
    ];
    expect(stalenessOf(samples, 300n, 2100)).toBe(100);
    expect(stalenessOf(samples, 250n, 2100)).toBe(600);
    expect(stalenessOf(samples, 100n, 2100)).toBe(1100);
  });

  it("is unknown when the replica is behind every sample kept", () => {
    expect(stalenessOf([{ at: 1000, position: 100n }], 99n, 1200)).toBeUndefined();
  });
});
