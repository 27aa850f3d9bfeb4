import type { PasswordEntry, ProviderConfig, ProxyConfig } from "./config.js";
import { deriveKeys } from "./keys.js";
import type { Logger } from "@baton/log";
import { createOidc, type Oidc } from "./oidc.js";
import { createLoginThrottle, DEFAULT_THROTTLE, type LoginThrottle } from "./login-throttle.js";
import { createPasswordCheck, type PasswordCheck } from "./password-login.js";
import { permissionsFor, scopesFor } from "./permissions.js";
import { createSessions, type Session } from "./sessions.js";
import { createTokenMinter } from "./token-minter.js";

/** A valid session with the groups and permissions the current config gives it. */
export interface SignedIn {
  session: Session;
  groups: string[];
  permissions: string[];
  /** null: no scopes, every process (docs/auth.md "Scopes"). */
  scopes: string[] | null;
}

/** Everything a configured login needs, built once from the config. */
export interface SignIn {
  providers: ReadonlyMap<string, ProviderConfig>;
  passwordLogin: boolean;
  checkPassword: PasswordCheck;
  /** Failed password sign-ins per account and per client address (docs/proxy.md "Failed sign-ins"). */
  throttle: LoginThrottle;
  oidc: Oidc;
  /** Encrypts the session and OIDC-transaction cookies. */
  cookieKey: Uint8Array;
  sessionTtlMs: number;
  /** The person behind a session cookie value, or null (none, forged, expired, logged out, no longer configured). */
  resolve(cookie: string | undefined): Promise<SignedIn | null>;
  /** A new session for a person who just proved who they are, with its sealed cookie value. */
  start(identity: { subject: string; groups: string[]; via: string }): Promise<{ signedIn: SignedIn; cookie: string }>;
  signOut(who: SignedIn): void;
  /** The JWT to put in Authorization for this person's request. */
  tokenFor(who: SignedIn): Promise<string>;
}

/** Null when the config has no login (no config, or a login without passwords and providers). */
export function createSignIn(config: ProxyConfig | null, deps: { log: Logger; now?: () => number }): SignIn | null {
  if (!config?.login || !config.token) return null;
  const { login, token } = config;
  const now = deps.now ?? Date.now;
  const keys = deriveKeys(token.secret);
  const sessions = createSessions({ key: keys.cookieKey, ttlMs: config.sessionTtlMs, now });
  const minter = createTokenMinter(
    {
      key: keys.jwtSigningKey,
      issuer: token.issuer,
      audience: token.audience,
      ttlMs: token.ttlMs,
      scopesClaim: token.scopesClaim,
    },
    now,
  );
  const passwordsByEmail = new Map<string, PasswordEntry>(login.passwords.map((p) => [p.email.toLowerCase(), p]));
  const providers = new Map(login.providers.map((p) => [p.id, p]));

  const withPermissions = (session: Session): SignedIn | null => {
    let groups: string[];
    if (session.via === "password") {
      // Password users' groups follow the current config; one removed from it is signed out.
      const entry = passwordsByEmail.get(session.subject.toLowerCase());
      if (!entry) return null;
      groups = entry.groups;
    } else {
      if (!providers.has(session.via)) return null;
      groups = session.groups;
    }
    const identity = { subject: session.subject, groups };
    return { session, groups, permissions: permissionsFor(identity, config), scopes: scopesFor(identity, config) };
  };

  return {
    providers,
    passwordLogin: login.passwords.length > 0,
    checkPassword: createPasswordCheck(login.passwords),
    throttle: createLoginThrottle(
      {
        ...DEFAULT_THROTTLE,
        account: { free: config.passwordThrottle.accountFailures, maxDelayMs: config.passwordThrottle.maxDelayMs },
        address: { free: config.passwordThrottle.addressFailures, maxDelayMs: config.passwordThrottle.maxDelayMs },
      },
      now,
    ),
    oidc: createOidc(deps.log),
    cookieKey: keys.cookieKey,
    sessionTtlMs: config.sessionTtlMs,
    async resolve(cookie) {
      const session = await sessions.read(cookie);
      return session ? withPermissions(session) : null;
    },
    async start(identity) {
      // Password sessions store no groups: they are read from the config on every request.
      const { session, cookie } = await sessions.issue(
        identity.via === "password" ? { ...identity, groups: [] } : identity,
      );
      const signedIn = withPermissions(session);
      if (!signedIn) throw new Error(`sign-in via ${identity.via} is not configured`);
      deps.log.info("signed in", { subject: session.subject, via: session.via });
      return { signedIn, cookie };
    },
    signOut(who) {
      sessions.revoke(who.session);
      minter.forget(who.session.id);
      deps.log.info("signed out", { subject: who.session.subject });
    },
    tokenFor: (who) => minter.tokenFor(who.session.id, who.session.subject, who.permissions, who.scopes),
  };
}
