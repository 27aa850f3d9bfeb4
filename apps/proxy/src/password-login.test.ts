import bcrypt from "bcryptjs";
import { describe, expect, it } from "vitest";
import { createPasswordCheck } from "./password-login.js";

const entries = [
  { email: "Ann@Example.com", hash: bcrypt.hashSync("right", 4), groups: ["ops"] },
  { email: "bob@example.com", hash: bcrypt.hashSync("other", 4), groups: [] },
];

describe("createPasswordCheck", () => {
  const check = createPasswordCheck(entries);

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
    const slow = createPasswordCheck([{ email: "a@b", hash: bcrypt.hashSync("x", 8), groups: [] }]);
    await slow("nobody@b", "x"); // the decoy hash is made on first use
    const t0 = performance.now();
    await slow("nobody@b", "x");
    const unknown = performance.now() - t0;
    const t1 = performance.now();
    await slow("a@b", "y");
    const known = performance.now() - t1;
    expect(unknown, "an unknown email must not answer much faster than a wrong password").toBeGreaterThan(known / 4);
  });
});
