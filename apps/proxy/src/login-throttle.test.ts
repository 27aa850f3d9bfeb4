import { describe, expect, it } from "vitest";
import { createLoginThrottle, DEFAULT_THROTTLE, type LoginThrottleSettings } from "./login-throttle.js";

function clock() {
  let t = 1_000_000;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

const SETTINGS: LoginThrottleSettings = {
  ...DEFAULT_THROTTLE,
  account: { free: 3, maxDelayMs: 8_000 },
  address: { free: 10, maxDelayMs: 60_000 },
};

/** One attempt that fails, through admit/release like the sign-in route. */
function failOnce(throttle: ReturnType<typeof createLoginThrottle>, account: string, address: string) {
  const verdict = throttle.admit(account, address);
  if (!verdict.ok) return verdict;
  verdict.release();
  throttle.failed(account, address);
  return verdict;
}

describe("login throttle", () => {
  it("closes an account after the free failures, for a delay doubling up to the cap, then opens it again", () => {
    const c = clock();
    const throttle = createLoginThrottle(SETTINGS, c.now);
    for (let i = 0; i < 3; i++) expect(failOnce(throttle, "ann@example.com", `10.0.0.${i}`).ok).toBe(true);
    expect(throttle.admit("ann@example.com", "10.0.0.9").ok, "still open after the free failures").toBe(true);
    // That 4th attempt fails too: 1 s closed, whichever address tries (the case of the email does not matter).
    throttle.failed("ann@example.com", "10.0.0.9");
    expect(throttle.admit("ANN@example.com", "10.9.9.9")).toMatchObject({
      ok: false,
      reason: "account",
      retryAfterMs: 1000,
    });
    const delays: number[] = [];
    for (let i = 0; i < 6; i++) {
      const closed = throttle.admit("ann@example.com", "10.0.0.1");
      if (!closed.ok) c.advance(closed.retryAfterMs);
      expect(failOnce(throttle, "ann@example.com", "10.0.0.1").ok).toBe(true);
      const next = throttle.admit("ann@example.com", "10.0.0.1");
      delays.push(next.ok ? 0 : next.retryAfterMs);
    }
    expect(delays).toEqual([2000, 4000, 8000, 8000, 8000, 8000]);
    c.advance(8000);
    expect(throttle.admit("ann@example.com", "10.0.0.1").ok, "the real user gets in once the window passed").toBe(true);
  });

  it("does not count attempts refused while closed, and a success clears the account", () => {
    const c = clock();
    const throttle = createLoginThrottle(SETTINGS, c.now);
    for (let i = 0; i < 4; i++) failOnce(throttle, "bob", "10.0.0.1");
    for (let i = 0; i < 50; i++) expect(throttle.admit("bob", "10.0.0.2").ok).toBe(false);
    c.advance(1000);
    const verdict = throttle.admit("bob", "10.0.0.3");
    expect(verdict.ok, "the flood did not stretch the 1 s window").toBe(true);
    throttle.succeeded("bob");
    for (let i = 0; i < 3; i++) expect(failOnce(throttle, "bob", "10.0.0.3").ok).toBe(true);
  });

  it("closes an address that guesses across many accounts", () => {
    const c = clock();
    const throttle = createLoginThrottle(SETTINGS, c.now);
    for (let i = 0; i < 11; i++) expect(failOnce(throttle, `user${i}@example.com`, "192.0.2.7").ok).toBe(true);
    expect(throttle.admit("someone-new@example.com", "192.0.2.7")).toMatchObject({ ok: false, reason: "address" });
    expect(throttle.admit("someone-new@example.com", "192.0.2.8").ok, "other addresses are not affected").toBe(true);
  });

  it("lets one address run only a bounded number of checks at once", () => {
    const throttle = createLoginThrottle(SETTINGS, clock().now);
    const first = throttle.admit("a", "192.0.2.1");
    const second = throttle.admit("b", "192.0.2.1");
    expect(first.ok && second.ok).toBe(true);
    expect(throttle.admit("c", "192.0.2.1")).toMatchObject({ ok: false, reason: "concurrent" });
    if (first.ok) first.release();
    expect(throttle.admit("c", "192.0.2.1").ok).toBe(true);
  });

  it("forgets failures after forgetMs and keeps at most maxKeys of each kind", () => {
    const c = clock();
    const throttle = createLoginThrottle({ ...SETTINGS, forgetMs: 60_000, maxKeys: 3 }, c.now);
    for (let i = 0; i < 4; i++) failOnce(throttle, "old", "192.0.2.1");
    expect(throttle.admit("old", "192.0.2.2").ok).toBe(false);
    c.advance(61_000);
    for (let i = 0; i < 3; i++) failOnce(throttle, "old", "192.0.2.1");
    expect(throttle.admit("old", "192.0.2.2").ok, "the earlier failures were forgotten").toBe(true);
    for (const name of ["x", "y", "z"]) failOnce(throttle, name, "192.0.2.9");
    for (let i = 0; i < 3; i++) failOnce(throttle, "old", "192.0.2.1");
    // "old" was the least recently failed key when x, y, z arrived, so it was dropped: 3 failures, still open.
    expect(throttle.admit("old", "192.0.2.2").ok).toBe(true);
  });
});
