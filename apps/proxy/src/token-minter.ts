import { SignJWT } from "jose";

export interface MintSettings {
  key: Uint8Array;
  issuer: string;
  audience: string;
  ttlMs: number;
  /** The claim carrying the scopes (`token.scopes_claim`); absent claim = no scopes. */
  scopesClaim?: string;
}

export interface TokenMinter {
  /**
   * The JWT to send for this session: a cached one while less than half its life has passed,
   * else a fresh one. `perms` is part of the cache key, so a changed permission set mints anew.
   */
  tokenFor(
    sessionId: string,
    subject: string,
    perms: readonly string[],
    scopes?: readonly string[] | null,
  ): Promise<string>;
  forget(sessionId: string): void;
  /** Cached tokens (for tests of pruning). */
  size(): number;
}

interface Cached {
  jwt: string;
  key: string;
  renewAt: number;
  expiresAt: number;
}

/** HS256 JWTs with `sub`, `perms`, `iss`, `aud`, `iat` and `exp` = now + ttl, as baton-api verifies them. */
export function createTokenMinter(settings: MintSettings, now: () => number = Date.now): TokenMinter {
  const cache = new Map<string, Cached>();
  let lastPrune = now();
  const prune = (t: number) => {
    if (t - lastPrune < settings.ttlMs) return;
    lastPrune = t;
    for (const [id, c] of cache) if (c.expiresAt <= t) cache.delete(id);
  };
  return {
    async tokenFor(sessionId, subject, perms, scopes = null) {
      const t = now();
      prune(t);
      const key = `${subject}\n${perms.join(",")}\n${scopes === null ? "*" : `[${scopes.join(",")}]`}`;
      const hit = cache.get(sessionId);
      if (hit && hit.key === key && t < hit.renewAt) return hit.jwt;
      // Whole seconds: exp - iat is exactly the ttl, and the cache renews at half of it.
      const iat = Math.floor(t / 1000);
      const exp = iat + Math.max(1, Math.round(settings.ttlMs / 1000));
      const claims: Record<string, unknown> = { perms: [...perms] };
      if (scopes !== null) claims[settings.scopesClaim ?? "scopes"] = [...scopes];
      const jwt = await new SignJWT(claims)
        .setProtectedHeader({ alg: "HS256", typ: "JWT" })
        .setSubject(subject)
        .setIssuer(settings.issuer)
        .setAudience(settings.audience)
        .setIssuedAt(iat)
        .setExpirationTime(exp)
        .sign(settings.key);
      cache.set(sessionId, { jwt, key, renewAt: (iat * 1000 + exp * 1000) / 2, expiresAt: exp * 1000 });
      return jwt;
    },
    forget(sessionId) {
      cache.delete(sessionId);
    },
    size: () => cache.size,
  };
}
