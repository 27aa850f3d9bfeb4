import { afterEach, describe, expect, it, vi } from "vitest";
import { longTimeout } from "./long-timeout.js";

afterEach(() => {
  vi.useRealTimers();
});

describe("longTimeout", () => {
  it("does not fire before a delay beyond Node's 24.8-day timer limit has passed, then fires once", () => {
    vi.useFakeTimers();
    const fn = vi.fn();
    const day = 86_400_000;
    longTimeout(fn, 30 * day);
    vi.advanceTimersByTime(1);
    expect(fn, "a plain setTimeout of 30 days overflows and fires at once").not.toHaveBeenCalled();
    vi.advanceTimersByTime(29 * day);
    expect(fn).not.toHaveBeenCalled();
    vi.advanceTimersByTime(day);
    expect(fn).toHaveBeenCalledTimes(1);
  });

  it("never fires once cancelled", () => {
    vi.useFakeTimers();
    const fn = vi.fn();
    const t = longTimeout(fn, 1000);
    t.cancel();
    vi.advanceTimersByTime(2000);
    expect(fn).not.toHaveBeenCalled();
  });
});
