// The claim long-poll's shared check (docs/engine.md "Claim long-poll"): waiting claims do not
// each claim again every second and on every park; one lookup of what is claimable wakes only
// the claims it can feed. Audit, session 8 (docs/limits.md): 1,000 idle long-polls were 1,000
// claim statements a second.
import { until } from "@baton/testkit";
import { describe, expect, it } from "vitest";
import type { Db } from "../../storage/db.js";
import { announceClaimable, type ClaimableTasks, type ClaimFilter, claimWaiting } from "./claim-wait.js";

const nothing: ClaimableTasks = { groups: [], more: false };

/** A waiting claim whose claim counts its calls and gets `gives` from its second call on. */
function waitingClaim(db: Db, filter: ClaimFilter, claimable: () => Promise<ClaimableTasks>, waitMs = 60_000) {
  const abort = new AbortController();
  const claim = { calls: 0, gives: [] as string[] };
  const answer = claimWaiting(
    db,
    waitMs,
    abort.signal,
    async () => {
      claim.calls++;
      return claim.calls > 1 ? claim.gives : [];
    },
    filter,
    claimable,
  );
  return { claim, answer, abort };
}

/** Lets the claims that answered empty reach their wait (their continuations are microtasks). */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe("waiting claims", () => {
  it("claim only when they begin and at their deadline while nothing is claimable, however many wait", async () => {
    const db = {} as Db;
    let lookups = 0;
    const claimable = async () => {
      lookups++;
      return nothing;
    };
    const claims = Array.from({ length: 200 }, () => waitingClaim(db, { limit: 1 }, claimable, 2_500));
    await settle();
    announceClaimable(db);
    const answers = await Promise.all(claims.map((c) => c.answer));
    expect(answers.every((a) => a.length === 0)).toBe(true);
    expect(claims.map((c) => c.claim.calls)).toEqual(claims.map(() => 2));
    expect(lookups, "one shared lookup per announce or recheck, not one per claim").toBeGreaterThan(0);
  });

  it("are woken by a lookup only as far as its claimable tasks feed them, oldest first and by filter", async () => {
    const db = {} as Db;
    let lookups = 0;
    // Only the first lookup finds a task (one of process "a"), whichever triggers it.
    const claimable = async () =>
      ++lookups === 1 ? { groups: [{ process: "a", task: "t", version: 1, count: 1 }], more: false } : nothing;
    const a1 = waitingClaim(db, { limit: 1, process: "a" }, claimable);
    const b = waitingClaim(db, { limit: 1, process: "b" }, claimable);
    const a2 = waitingClaim(db, { limit: 1, process: "a", task: "t" }, claimable);
    a1.claim.gives = b.claim.gives = a2.claim.gives = ["task"];
    await settle();
    announceClaimable(db);
    expect(await a1.answer).toEqual(["task"]);
    await until("the lookup ended", () => (lookups >= 1 ? true : undefined));
    await settle();
    expect([b.claim.calls, a2.claim.calls], "neither the other process's claim nor the younger one woke").toEqual([
      1, 1,
    ]);
    b.abort.abort();
    a2.abort.abort();
    expect([await b.answer, await a2.answer]).toEqual([[], []]);
    expect([b.claim.calls, a2.claim.calls], "a claim whose caller went away does not claim again").toEqual([1, 1]);
  });

  it("are all woken when the lookup's sample is full, or when the lookup fails", async () => {
    for (const lookup of [
      async () => ({ groups: [{ process: "x", task: "t", version: 1, count: 1_000 }], more: true }),
      async (): Promise<ClaimableTasks> => {
        throw new Error("the database is unreachable");
      },
    ]) {
      const db = {} as Db;
      const claims = [
        waitingClaim(db, { limit: 1, process: "a" }, lookup),
        waitingClaim(db, { limit: 1, process: "b" }, lookup),
      ];
      for (const c of claims) c.claim.gives = ["task"];
      await settle();
      announceClaimable(db);
      expect(await Promise.all(claims.map((c) => c.answer))).toEqual([["task"], ["task"]]);
    }
  });
});
