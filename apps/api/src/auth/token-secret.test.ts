import { describe, expect, it } from "vitest";
import { generateTokenSecret, hashTokenSecret, isTokenSecretShape, TOKEN_PREFIX } from "./token-secret.js";

describe("token secrets", () => {
  it("are svc_sk_ followed by 32 random bytes in base64url", () => {
    const secret = generateTokenSecret();
    expect(secret.startsWith(TOKEN_PREFIX)).toBe(true);
    const body = secret.slice(TOKEN_PREFIX.length);
    expect(body).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(Buffer.from(body, "base64url")).toHaveLength(32);
    expect(isTokenSecretShape(secret)).toBe(true);
  });

  it("never repeat", () => {
    const seen = new Set(Array.from({ length: 200 }, generateTokenSecret));
    expect(seen.size).toBe(200);
  });

  it("hash to the sha256 hex of the whole secret, prefix included", () => {
    // FIPS 180-2 test vector for "abc".
    expect(hashTokenSecret("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    expect(hashTokenSecret("svc_sk_abc")).toMatch(/^[0-9a-f]{64}$/);
    expect(hashTokenSecret("svc_sk_abc"), "the prefix is part of what is hashed").not.toBe(hashTokenSecret("abc"));
  });

  it("shape check accepts only the issued form", () => {
    expect(isTokenSecretShape(`svc_sk_${"a".repeat(43)}`)).toBe(true);
    expect(isTokenSecretShape(`svc_sk_${"a".repeat(42)}`)).toBe(false);
    expect(isTokenSecretShape(`svc_sk_${"a".repeat(42)}=`)).toBe(false);
    expect(isTokenSecretShape(`SVC_SK_${"a".repeat(43)}`)).toBe(false);
  });
});
