import { describe, expect, it } from "vitest";
import { relativeTime } from "./time-text.js";

describe("relativeTime", () => {
  const now = Date.UTC(2026, 0, 1, 12);
  it("names the largest unit that fits, past and future", () => {
    expect(relativeTime(now - 3 * 60_000 - 5000, now)).toBe("3 min ago");
    expect(relativeTime(now + 2 * 3_600_000 + 1, now)).toBe("in 2 h");
    expect(relativeTime(now - 26 * 3_600_000, now)).toBe("1 d ago");
    expect(relativeTime(now + 30_000, now)).toBe("in 30 s");
  });
  it("says just now within 5 seconds", () => {
    expect(relativeTime(now - 4000, now)).toBe("just now");
  });
});
