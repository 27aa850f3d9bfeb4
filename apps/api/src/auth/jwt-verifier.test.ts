import { SignJWT, UnsecuredJWT } from "jose";
import { describe, expect, it } from "vitest";
import { JWT_CLOCK_TOLERANCE_SECONDS, type JwtSettings, verifyJwt } from "./jwt-verifier.js";

const key = new TextEncoder().encode("0123456789abcdef0123456789abcdef");
const settings: JwtSettings = { key, issuer: "baton-proxy", audience: "baton", maxLifetimeSeconds: 3600 };
const NOW = Date.UTC(2026, 0, 1, 12);
const nowSec = NOW / 1000;

interface Mint {
  claims?: Record<string, unknown>;
  key?: Uint8Array;
  issuer?: string | null;
  audience?: string | null;
  sub?: string | null;
  exp?: number | null;
  alg?: string;
}

function mint(options: Mint = {}): Promise<string> {
  const jwt = new SignJWT({ perms: ["read"], ...options.claims })
    .setProtectedHeader({ alg: options.alg ?? "HS256" })
    .setIssuedAt(nowSec);
  if (options.issuer !== null) jwt.setIssuer(options.issuer ?? settings.issuer);
  if (options.audience !== null) jwt.setAudience(options.audience ?? settings.audience);
  if (options.sub !== null) jwt.setSubject(options.sub ?? "ada@example.com");
  if (options.exp !== null) jwt.setExpirationTime(options.exp ?? nowSec + 60);
  return jwt.sign(options.key ?? key);
}

async function reason(jwt: string, now = NOW): Promise<string> {
  const verdict = await verifyJwt(jwt, settings, now);
  return verdict.ok ? "accepted" : verdict.reason;
}

describe("verifyJwt", () => {
  it("refuses a JWT valid for longer than --limit-jwt-lifetime, exp 1e300 included, counted from iat or from now", async () => {
    const tooLong =
      'the JWT is valid for longer than 3600 s (--limit-jwt-lifetime, docs/auth.md "JWTs from the sign-in proxy"); mint shorter-lived ones';
    expect(await reason(await mint({ exp: 1e300 }))).toBe(tooLong);
    expect(await reason(await mint({ exp: nowSec + 3600 + JWT_CLOCK_TOLERANCE_SECONDS + 1 }))).toBe(tooLong);
    expect(await reason(await mint({ exp: nowSec + 3600 }))).toBe("accepted");
    const withoutIat = await new SignJWT({ perms: ["read"] })
      .setProtectedHeader({ alg: "HS256" })
      .setIssuer(settings.issuer)
      .setAudience(settings.audience)
      .setSubject("ada@example.com")
      .setExpirationTime(nowSec + 7200)
      .sign(key);
    expect(await reason(withoutIat)).toBe(tooLong);
  });

  it("accepts a valid token: the actor is sub and the permissions are perms", async () => {
    const verdict = await verifyJwt(await mint({ claims: { perms: ["read", "operate"] } }), settings, NOW);
    expect(verdict).toEqual({
      ok: true,
      principal: { actor: "ada@example.com", perms: ["read", "operate"], scopes: null },
    });
  });

  it("accepts an empty perms array (a person signed in without permissions)", async () => {
    const verdict = await verifyJwt(await mint({ claims: { perms: [] } }), settings, NOW);
    expect(verdict.ok && verdict.principal.perms).toEqual([]);
  });

  it("refuses an expired token, with a small clock-skew allowance", async () => {
    const jwt = await mint({ exp: nowSec - 1 });
    expect(await reason(jwt), "1 s past exp is within the skew allowance").toBe("accepted");
    expect(await reason(jwt, NOW + JWT_CLOCK_TOLERANCE_SECONDS * 1000 + 1000)).toBe("the JWT has expired");
    expect(await reason(await mint({ exp: nowSec - 3600 }))).toBe("the JWT has expired");
  });

  it("uses the service clock, not the wall clock", async () => {
    const jwt = await mint({ exp: nowSec + 60 });
    expect(await reason(jwt, NOW + 120_000)).toBe("the JWT has expired");
  });

  it("refuses a token without exp", async () => {
    expect(await reason(await mint({ exp: null }))).toBe("the JWT lacks a valid exp claim");
  });

  it("refuses a wrong or missing issuer", async () => {
    expect(await reason(await mint({ issuer: "someone-else" }))).toBe(
      "the JWT was issued by another issuer than this server's --jwt-issuer",
    );
    expect(await reason(await mint({ issuer: null }))).toBe(
      "the JWT was issued by another issuer than this server's --jwt-issuer",
    );
  });

  it("accepts an aud array that contains the audience", async () => {
    const jwt = await new SignJWT({ perms: ["read"] })
      .setProtectedHeader({ alg: "HS256" })
      .setSubject("ada")
      .setIssuer(settings.issuer)
      .setAudience(["other", settings.audience])
      .setExpirationTime(nowSec + 60)
      .sign(key);
    expect(await reason(jwt)).toBe("accepted");
  });

  it("refuses a wrong or missing audience", async () => {
    expect(await reason(await mint({ audience: "other-api" }))).toBe(
      "the JWT is meant for another audience than this server's --jwt-audience",
    );
    expect(await reason(await mint({ audience: null }))).toBe(
      "the JWT is meant for another audience than this server's --jwt-audience",
    );
  });

  it("refuses a signature made with another secret", async () => {
    const other = new TextEncoder().encode("another-secret-of-at-least-32-chars!!");
    expect(await reason(await mint({ key: other }))).toBe(
      "the JWT's signature does not match this server's --jwt-secret-file",
    );
  });

  it("refuses a tampered payload", async () => {
    const [header, , signature] = (await mint()).split(".");
    const payload = Buffer.from(
      JSON.stringify({
        perms: ["admin"],
        sub: "ada@example.com",
        iss: settings.issuer,
        aud: settings.audience,
        exp: nowSec + 60,
      }),
    ).toString("base64url");
    expect(await reason(`${header}.${payload}.${signature}`)).toBe(
      "the JWT's signature does not match this server's --jwt-secret-file",
    );
  });

  it("refuses alg none (an unsigned token)", async () => {
    const unsigned = new UnsecuredJWT({ perms: ["admin"] })
      .setSubject("mallory")
      .setIssuer(settings.issuer)
      .setAudience(settings.audience)
      .setExpirationTime(nowSec + 60)
      .encode();
    expect(await reason(unsigned)).toBe("the JWT must be signed with HS256");
  });

  it("refuses other HMAC algorithms even with the right secret", async () => {
    expect(await reason(await mint({ alg: "HS512" }))).toBe("the JWT must be signed with HS256");
  });

  it("refuses a missing perms claim, and perms that are not an array of strings", async () => {
    const noPerms = await new SignJWT({})
      .setProtectedHeader({ alg: "HS256" })
      .setSubject("ada")
      .setIssuer(settings.issuer)
      .setAudience(settings.audience)
      .setExpirationTime(nowSec + 60)
      .sign(key);
    expect(await reason(noPerms)).toBe("the JWT's perms claim must be an array of permission names");
    expect(await reason(await mint({ claims: { perms: "admin" } }))).toBe(
      "the JWT's perms claim must be an array of permission names",
    );
    expect(await reason(await mint({ claims: { perms: ["read", 7] } }))).toBe(
      "the JWT's perms claim must be an array of permission names",
    );
  });

  it("refuses a missing or empty sub", async () => {
    expect(await reason(await mint({ sub: null }))).toBe("the JWT lacks a valid sub claim");
    expect(await reason(await mint({ sub: "  " }))).toBe(
      "the JWT's sub claim must be a non-empty string naming the person",
    );
  });

  it("refuses a token that is not valid yet", async () => {
    const jwt = await new SignJWT({ perms: [] })
      .setProtectedHeader({ alg: "HS256" })
      .setSubject("ada")
      .setIssuer(settings.issuer)
      .setAudience(settings.audience)
      .setNotBefore(nowSec + 600)
      .setExpirationTime(nowSec + 900)
      .sign(key);
    expect(await reason(jwt)).toBe("the JWT is not valid yet (nbf)");
  });

  it("refuses a token issued in the future beyond the clock skew, and accepts one within it", async () => {
    const issuedAt = (iat: number) =>
      new SignJWT({ perms: ["read"] })
        .setProtectedHeader({ alg: "HS256" })
        .setSubject("ada")
        .setIssuer(settings.issuer)
        .setAudience(settings.audience)
        .setIssuedAt(iat)
        .setExpirationTime(iat + 60)
        .sign(key);
    expect(await reason(await issuedAt(nowSec + 3600))).toBe(
      `the JWT was issued in the future (iat is more than ${JWT_CLOCK_TOLERANCE_SECONDS} s ahead of this server's clock)`,
    );
    expect(await reason(await issuedAt(nowSec + JWT_CLOCK_TOLERANCE_SECONDS + 1))).not.toBe("accepted");
    expect(await reason(await issuedAt(nowSec + JWT_CLOCK_TOLERANCE_SECONDS))).toBe("accepted");
  });

  it("refuses a sub that would pass for an API token's actor", async () => {
    for (const sub of ["token:3f2a", "token:"]) {
      expect(await reason(await mint({ sub }))).toBe(
        'the JWT\'s sub claim may not start with "token:": that prefix names API tokens in audit records',
      );
    }
    expect(await reason(await mint({ sub: "Token:3f2a" })), "only the exact prefix is reserved").toBe("accepted");
  });

  it("keeps only permission names from perms: another name admits nothing and is never repeated", async () => {
    const verdict = await verifyJwt(await mint({ claims: { perms: ["read", "<b>root</b>", "Admin"] } }), settings, NOW);
    expect(verdict).toEqual({ ok: true, principal: { actor: "ada@example.com", perms: ["read"], scopes: null } });
  });

  it("refuses garbage in JWT shape", async () => {
    expect(await reason("abc.def.ghi")).toBe("the credential is not a well-formed JWT");
  });
});
