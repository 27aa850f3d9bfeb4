import { decodeProtectedHeader, jwtVerify } from "jose";
import { describe, expect, it } from "vitest";
import { createTokenMinter } from "./token-minter.js";

const key = new TextEncoder().encode("k".repeat(32));
const settings = { key, issuer: "baton-proxy", audience: "baton-api", ttlMs: 60_000 };

function clock(start: number) {
  const c = { t: start, now: () => c.t };
  return c;
}

describe("createTokenMinter", () => {
  it("mints an HS256 JWT with sub, perms, iss, aud, iat and exp = now + ttl", async () => {
    const c = clock(1_800_000_000_000);
    const jwt = await createTokenMinter(settings, c.now).tokenFor("s1", "ann@example.com", ["read", "operate"]);
    expect(decodeProtectedHeader(jwt).alg).toBe("HS256");
    const { payload } = await jwtVerify(jwt, key, {
      issuer: "baton-proxy",
      audience: "baton-api",
      currentDate: new Date(c.t),
    });
    expect(payload).toEqual({
      sub: "ann@example.com",
      perms: ["read", "operate"],
      iss: "baton-proxy",
      aud: "baton-api",
      iat: 1_800_000_000,
      exp: 1_800_000_060,
    });
  });

  it("carries the scopes claim for a person with scopes, and no claim for one without", async () => {
    const c = clock(1_800_000_000_000);
    const minter = createTokenMinter({ ...settings, scopesClaim: "team_scopes" }, c.now);
    const scoped = await minter.tokenFor("s1", "ann", ["read"], ["orders-*"]);
    const verify = async (jwt: string) =>
      (await jwtVerify(jwt, key, { issuer: "baton-proxy", audience: "baton-api", currentDate: new Date(c.t) })).payload;
    expect((await verify(scoped)).team_scopes).toEqual(["orders-*"]);
    const open = await minter.tokenFor("s1", "ann", ["read"], null);
    expect(open, "a changed scope set mints anew").not.toBe(scoped);
    expect(await verify(open)).not.toHaveProperty("team_scopes");
  });

  it("reuses a session's token until half its life has passed, then mints a new one", async () => {
    const c = clock(1_800_000_000_000);
    const minter = createTokenMinter(settings, c.now);
    const first = await minter.tokenFor("s1", "ann", ["read"]);
    c.t += 29_999;
    expect(await minter.tokenFor("s1", "ann", ["read"]), "still in the first half of its life").toBe(first);
    c.t += 1;
    const second = await minter.tokenFor("s1", "ann", ["read"]);
    expect(second).not.toBe(first);
    const { payload } = await jwtVerify(second, key, { currentDate: new Date(c.t) });
    expect(payload.exp).toBe(1_800_000_090);
  });

  it("keeps one token per session, and mints anew when the permissions change", async () => {
    const c = clock(1_800_000_000_000);
    const minter = createTokenMinter(settings, c.now);
    const a = await minter.tokenFor("s1", "ann", ["read"]);
    await minter.tokenFor("s2", "ann", ["read"]);
    expect(minter.size(), "another session of the same person has its own cache entry").toBe(2);
    const c2 = await minter.tokenFor("s1", "ann", ["read", "deploy"]);
    expect(c2).not.toBe(a);
    expect((await jwtVerify(c2, key, { currentDate: new Date(c.t) })).payload.perms).toEqual(["read", "deploy"]);
  });

  it("forgets a session's token on logout and prunes expired ones", async () => {
    const c = clock(1_800_000_000_000);
    const minter = createTokenMinter(settings, c.now);
    await minter.tokenFor("s1", "ann", []);
    await minter.tokenFor("s2", "bob", []);
    minter.forget("s1");
    expect(minter.size()).toBe(1);
    c.t += 61_000;
    await minter.tokenFor("s3", "cy", []);
    expect(minter.size(), "s2's token expired and was dropped").toBe(1);
  });
});
