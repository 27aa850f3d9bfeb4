import { describe, expect, it } from "vitest";
import { newId } from "./storage/ids.js";
import { createClock, LATEST_CLOCK_MS } from "./clock.js";

// Audit, session 8 (docs/limits.md): `POST /tick` with the largest `advance_ms` (100 years),
// repeated 2,800 times, moved the clock past what an instance id holds, and every start
// answered 500 from then on ("out of range … < 2 ** 48").
describe("the service clock", () => {
  it("moves forward up to the latest instant an instance id holds, and refuses to move past it", () => {
    const clock = createClock(() => LATEST_CLOCK_MS - 1_000);
    expect(clock.maxAdvance()).toBe(1_000);
    clock.advance(1_000);
    expect(clock.now()).toBe(LATEST_CLOCK_MS);
    expect(() => clock.advance(1)).toThrow(RangeError);
    expect(clock.now(), "a refused move changes nothing").toBe(LATEST_CLOCK_MS);
    expect(clock.maxAdvance()).toBe(0);
  });

  it("stays a time an id can carry, with room for ids that run ahead of it within a millisecond", () => {
    expect(newId(LATEST_CLOCK_MS + 59_999)).toMatch(/^ffffffff-fffe-7/);
    expect(() => newId(2 ** 48)).toThrow(RangeError);
  });
});
