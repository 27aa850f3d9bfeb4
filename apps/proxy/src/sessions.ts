import { randomBytes } from "node:crypto";
import { seal, unseal } from "./sealed-cookie.js";

const PURPOSE = "session";

export interface Session {
  /** Random id: keys the minted-token cache and the logout list. */
  id: string;
  subject: string;
  groups: string[];
  /** `password`, or the id of the OpenID provider that signed the person in. */
  via: string;
  expiresAt: number;
}

export interface Sessions {
  /** A new session and its sealed cookie value. */
  issue(identity: { subject: string; groups: string[]; via: string }): Promise<{ session: Session; cookie: string }>;
  /** The session in a cookie, or null when forged, tampered, expired or logged out. */
  read(cookie: string | undefined): Promise<Session | null>;
  /** Logout: refuse this session's cookie from now on (in this process; it expires anyway). */
  revoke(session: Session): void;
  ttlMs: number;
}

/**
 * Stateless sessions: everything is in the sealed cookie, so they survive a proxy restart and
 * work behind several proxies sharing `token.secret`. Logout also remembers the session id in
 * memory until its expiry, so a copy of the cookie taken before logout stops working here.
 */
export function createSessions(options: { key: Uint8Array; ttlMs: number; now?: () => number }): Sessions {
  const now = options.now ?? Date.now;
  const revoked = new Map<string, number>();
  const prune = () => {
    const t = now();
    for (const [id, exp] of revoked) if (exp <= t) revoked.delete(id);
  };
  return {
    ttlMs: options.ttlMs,
    async issue(identity) {
      const session: Session = {
        id: randomBytes(16).toString("base64url"),
        ...identity,
        expiresAt: now() + options.ttlMs,
      };
      const cookie = await seal(
        { sid: session.id, sub: session.subject, grp: session.groups, via: session.via },
        options.key,
        session.expiresAt,
        PURPOSE,
      );
      return { session, cookie };
    },
    async read(cookie) {
      if (!cookie) return null;
      const p = await unseal(cookie, options.key, now(), PURPOSE);
      if (!p) return null;
      const { sid, sub, grp, via, exp } = p;
      if (typeof sid !== "string" || typeof sub !== "string" || typeof via !== "string" || typeof exp !== "number")
        return null;
      if (!Array.isArray(grp) || !grp.every((g) => typeof g === "string")) return null;
      if (revoked.has(sid)) return null;
      return { id: sid, subject: sub, groups: grp, via, expiresAt: exp * 1000 };
    },
    revoke(session) {
      prune();
      revoked.set(session.id, session.expiresAt);
    },
  };
}
