import { describe, expect, it } from "vitest";
import type { RetryPolicy } from "./definition.js";
import { defaultMaxDelay, retryDelayMs } from "./retry-delay.js";

const policy = (p: Partial<RetryPolicy> = {}): RetryPolicy => ({
  retries: 5,
  delay: "1s",
  factor: 2,
  max_delay: "5m",
  ...p,
});

describe("retryDelayMs", () => {
  it("grows by factor per retry, between half and all of the cap", () => {
    for (const [n, cap] of [
      [1, 1000],
      [2, 2000],
      [3, 4000],
      [4, 8000],
    ]) {
      expect(retryDelayMs(policy(), n, () => 0)).toBe(cap / 2);
      expect(retryDelayMs(policy(), n, () => 0.999999)).toBeLessThanOrEqual(cap);
      expect(retryDelayMs(policy(), n, () => 0.999999)).toBeGreaterThan(cap * 0.99);
    }
  });

  it("never exceeds max_delay", () => {
    const p = policy({ max_delay: "10s" });
    expect(retryDelayMs(p, 20, () => 0.9999)).toBeLessThanOrEqual(10_000);
    expect(retryDelayMs(p, 20, () => 0)).toBe(5000);
  });

  it("stays bounded when factor^n overflows", () => {
    expect(retryDelayMs(policy({ factor: 10 }), 1000, () => 1)).toBe(300_000);
  });

  it("stays within [cap/2, cap] for any random value", () => {
    for (let i = 0; i < 200; i++) {
      const d = retryDelayMs(policy({ delay: "300ms", factor: 3 }), 3, Math.random);
      expect(d).toBeGreaterThanOrEqual(1350);
      expect(d).toBeLessThanOrEqual(2700);
    }
  });

  it("factor 1 is a constant delay", () => {
    expect(retryDelayMs(policy({ factor: 1, delay: "2s" }), 7, () => 0)).toBe(1000);
  });
});

describe("defaultMaxDelay", () => {
  it("is the larger of 5 minutes and delay", () => {
    expect(defaultMaxDelay("1s")).toBe("5m");
    expect(defaultMaxDelay("10m")).toBe("10m");
  });
});
