import { describe, expect, it } from "vitest";
import { deriveKeys } from "./keys.js";
import { seal } from "./sealed-cookie.js";
import { createSessions } from "./sessions.js";

const { cookieKey } = deriveKeys("c".repeat(32));
const identity = { subject: "ann@example.com", groups: ["ops"], via: "corp" };

function clock(start: number) {
  const c = { t: start, now: () => c.t };
  return c;
}

describe("createSessions", () => {
  it("reads back the session it issued", async () => {
    const sessions = createSessions({ key: cookieKey, ttlMs: 3_600_000 });
    const { session, cookie } = await sessions.issue(identity);
    expect(cookie).not.toContain("ann@example.com");
    expect(await sessions.read(cookie)).toEqual({ ...session, expiresAt: Math.floor(session.expiresAt / 1000) * 1000 });
  });

  it("refuses a tampered cookie", async () => {
    const sessions = createSessions({ key: cookieKey, ttlMs: 3_600_000 });
    const { cookie } = await sessions.issue(identity);
    const parts = cookie.split(".");
    const ciphertext = parts[3]!;
    parts[3] = (ciphertext[0] === "A" ? "B" : "A") + ciphertext.slice(1);
    expect(await sessions.read(parts.join("."))).toBeNull();
    expect(await sessions.read(`${cookie}x`)).toBeNull();
    expect(await sessions.read("not-a-cookie")).toBeNull();
    expect(await sessions.read(undefined)).toBeNull();
  });

  it("refuses a cookie sealed with another secret", async () => {
    const other = createSessions({ key: deriveKeys("d".repeat(32)).cookieKey, ttlMs: 3_600_000 });
    const { cookie } = await other.issue(identity);
    expect(await createSessions({ key: cookieKey, ttlMs: 3_600_000 }).read(cookie)).toBeNull();
  });

  it("refuses a session past its ttl", async () => {
    const c = clock(Date.now());
    const sessions = createSessions({ key: cookieKey, ttlMs: 60_000, now: c.now });
    const { cookie } = await sessions.issue(identity);
    c.t += 59_000;
    expect(await sessions.read(cookie)).not.toBeNull();
    c.t += 2_000;
    expect(await sessions.read(cookie)).toBeNull();
  });

  it("refuses a revoked session (logout) but not another one", async () => {
    const sessions = createSessions({ key: cookieKey, ttlMs: 60_000 });
    const a = await sessions.issue(identity);
    const b = await sessions.issue(identity);
    sessions.revoke(a.session);
    expect(await sessions.read(a.cookie)).toBeNull();
    expect(await sessions.read(b.cookie)).not.toBeNull();
  });

  it("refuses a value sealed with the same key for another purpose", async () => {
    const sessions = createSessions({ key: cookieKey, ttlMs: 60_000 });
    const oidc = await seal({ sid: "x", sub: "ann", grp: [], via: "corp" }, cookieKey, Date.now() + 60_000, "oidc");
    expect(await sessions.read(oidc)).toBeNull();
  });
});

describe("deriveKeys", () => {
  it("signs JWTs with the secret itself and encrypts cookies with a different derived key", () => {
    const keys = deriveKeys("e".repeat(32));
    expect(new TextDecoder().decode(keys.jwtSigningKey), "the API verifies with the same secret file").toBe(
      "e".repeat(32),
    );
    expect(keys.cookieKey).toHaveLength(32);
    expect(Buffer.from(keys.cookieKey).equals(Buffer.from(keys.jwtSigningKey.slice(0, 32)))).toBe(false);
  });
});
