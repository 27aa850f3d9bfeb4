import { ApiError, ConnectionError } from "@baton/actions";
import { describe, expect, it } from "vitest";
import { backoffMs, isTransient, withRetry } from "./retry.js";

describe("withRetry", () => {
  it("retries transient failures (unreachable, 5xx, 429) and returns the first success", async () => {
    const failures = [
      new ConnectionError("http://x", new Error("ECONNREFUSED")),
      new ApiError(503, "unavailable", "down"),
      new ApiError(429, "unavailable", "slow down"),
    ];
    let calls = 0;
    const value = await withRetry(
      async () => {
        const failure = failures[calls++];
        if (failure) throw failure;
        return "ok";
      },
      { attempts: 5, baseMs: 1, capMs: 2 },
    );
    expect([value, calls]).toEqual(["ok", 4]);
  });

  it("gives up at once on a refusal that will not change (4xx, 501)", async () => {
    for (const refusal of [new ApiError(401, "unauthenticated", "no"), new ApiError(501, "unsupported", "no")]) {
      let calls = 0;
      await expect(
        withRetry(
          async () => {
            calls++;
            throw refusal;
          },
          { attempts: 5, baseMs: 1, capMs: 2 },
        ),
      ).rejects.toBe(refusal);
      expect(calls).toBe(1);
      expect(isTransient(refusal)).toBe(false);
    }
  });

  it("throws the last error after the last attempt", async () => {
    let calls = 0;
    await expect(
      withRetry(
        async () => {
          calls++;
          throw new ApiError(500, "internal", `boom ${calls}`);
        },
        { attempts: 3, baseMs: 1, capMs: 2 },
      ),
    ).rejects.toThrow("boom 3");
  });
});

describe("backoffMs", () => {
  it("stays between half and all of the doubled base, capped", () => {
    for (let attempt = 1; attempt <= 12; attempt++) {
      const ceiling = Math.min(1000, 10 * 2 ** (attempt - 1));
      const wait = backoffMs(attempt, 10, 1000);
      expect(wait).toBeGreaterThanOrEqual(ceiling / 2);
      expect(wait).toBeLessThanOrEqual(ceiling);
    }
  });
});
