import { hkdfSync } from "node:crypto";

/**
 * The two keys drawn from `token.secret`. Minted JWTs are signed with the secret itself (the
 * API verifies with the same file); cookies are encrypted with a key derived for them alone,
 * so a minted JWT can never pass as a cookie and a cookie never verifies at the API.
 */
export interface Keys {
  jwtSigningKey: Uint8Array;
  cookieKey: Uint8Array;
}

export function deriveKeys(secret: string): Keys {
  const raw = new TextEncoder().encode(secret);
  const cookieKey = new Uint8Array(hkdfSync("sha256", raw, new Uint8Array(0), "baton-proxy cookie encryption v1", 32));
  return { jwtSigningKey: raw, cookieKey };
}
