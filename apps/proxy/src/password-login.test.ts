import { performance } from "node:perf_hooks";
import bcrypt from "bcryptjs";
import { afterAll, describe, expect, it } from "vitest";
import { BcryptBusy, createBcryptWorker } from "./bcrypt-worker.js";
import { createPasswordCheck } from "./password-login.js";

const entries = [
  { email: "Ann@Example.com", hash: bcrypt.hashSync("right", 4), groups: ["ops"] },
  { email: "bob@example.com", hash: bcrypt.hashSync("other", 4), groups: [] },
];
const worker = createBcryptWorker();
afterAll(() => worker.close());

describe("createPasswordCheck", () => {
  const check = createPasswordCheck(entries, worker);

  it("returns the entry for the right password, matching the email case-insensitively", async () => {
    expect(await check("ann@example.com", "right")).toBe(entries[0]);
    expect(await check(" ANN@example.com ", "right")).toBe(entries[0]);
  });

  it("returns null for a wrong password, another user's password and an unknown email", async () => {
    expect(await check("ann@example.com", "wrong")).toBeNull();
    expect(await check("ann@example.com", "other")).toBeNull();
    expect(await check("zoe@example.com", "right")).toBeNull();
  });

  it("spends a bcrypt comparison on an unknown email too", async () => {
    const slow = createPasswordCheck([{ email: "a@b", hash: bcrypt.hashSync("x", 8), groups: [] }], worker);
    await slow("nobody@b", "x"); // the decoy hash is made on first use
    const t0 = performance.now();
    await slow("nobody@b", "x");
    const unknown = performance.now() - t0;
    const t1 = performance.now();
    await slow("a@b", "y");
    const known = performance.now() - t1;
    expect(unknown, "an unknown email must not answer much faster than a wrong password").toBeGreaterThan(known / 4);
  });

  it("runs bcrypt off the event loop: the main thread is mostly idle while a slow comparison runs", async () => {
    const hash = bcrypt.hashSync("x", 11);
    const slow = createPasswordCheck([{ email: "a@b", hash, groups: [] }], worker);
    const before = performance.eventLoopUtilization();
    await slow("a@b", "y");
    const during = performance.eventLoopUtilization(before);
    // bcryptjs on the event loop keeps it busy almost all the time (utilization near 1).
    expect(during.utilization).toBeLessThan(0.5);
  });

  it("refuses a check beyond the bounded queue instead of growing it", async () => {
    const tiny = createBcryptWorker(2);
    const hash = bcrypt.hashSync("x", 8);
    const check2 = createPasswordCheck([{ email: "a@b", hash, groups: [] }], tiny);
    const results = await Promise.allSettled([check2("a@b", "1"), check2("a@b", "2"), check2("a@b", "3")]);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "fulfilled", "rejected"]);
    expect((results[2] as PromiseRejectedResult).reason).toBeInstanceOf(BcryptBusy);
    expect(await check2("a@b", "x"), "the queue drained").not.toBeNull();
    await tiny.close();
  });
});
