// What `GET /auth/session` (the sign-in proxy's contract with the UI) says about the person.

import type { Permissions } from "./permissions.js";
import { type Route, routeHash } from "./route.js";

export interface Provider {
  id: string;
  name: string;
}

export interface Session {
  /** A login is configured in front of the API. */
  login: boolean;
  signedIn: boolean;
  subject: string | null;
  /** null: no login, show everything and let the API decide. */
  permissions: Permissions;
  /**
   * The processes the person reaches (docs/auth.md "Scopes"); null: every process. The API
   * already answers only what they cover; the header names them.
   */
  scopes: string[] | null;
  providers: Provider[];
  passwordLogin: boolean;
  /** The tracing tool's page of a trace, `{trace_id}` to replace (the proxy's `trace_url`); null when none. */
  traceUrl: string | null;
  /**
   * Set when no login is configured in front of the API (`login: false`) yet the API answered
   * 401: nobody can sign in here, and the sign-in page must say why rather than offer nothing.
   */
  apiNeedsCredentials?: true;
}

/** No proxy in front (or a proxy without login): everything shown, the API decides. */
export const NO_LOGIN: Session = {
  login: false,
  signedIn: false,
  subject: null,
  permissions: null,
  scopes: null,
  providers: [],
  passwordLogin: false,
  traceUrl: null,
};

/**
 * The session from the answer to `GET /auth/session`. A 404 means there is no proxy in front
 * (development against a bare API): no login. Any other non-JSON or malformed answer is an
 * error, because guessing "no login" there would show controls to someone signed out.
 */
export function sessionFromAnswer(status: number, body: unknown): Session {
  if (status === 404) return NO_LOGIN;
  if (status < 200 || status > 299)
    throw new Error(
      `GET /auth/session answered ${status}; expected 200 with the session, or 404 when no sign-in proxy is in front`,
    );
  const b = body as Record<string, unknown> | null;
  if (b === null || typeof b !== "object" || typeof b.login !== "boolean" || typeof b.signed_in !== "boolean") {
    throw new Error("GET /auth/session answered a body without the boolean fields login and signed_in");
  }
  const permissions = Array.isArray(b.permissions)
    ? b.permissions.filter((p): p is string => typeof p === "string")
    : null;
  const scopes = Array.isArray(b.scopes) ? b.scopes.filter((p): p is string => typeof p === "string") : null;
  const providers = Array.isArray(b.providers)
    ? b.providers
        .filter((p): p is Provider => typeof p?.id === "string")
        .map((p) => ({ id: p.id, name: typeof p.name === "string" && p.name ? p.name : p.id }))
    : [];
  return {
    login: b.login,
    signedIn: b.signed_in,
    subject: typeof b.subject === "string" ? b.subject : null,
    permissions,
    scopes,
    providers,
    passwordLogin: b.password_login === true,
    traceUrl: typeof b.trace_url === "string" && b.trace_url.includes("{trace_id}") ? b.trace_url : null,
  };
}

/** The sign-in page replaces everything when a login is configured and nobody is signed in, or the API wants credentials no one here can give. */
export function needsSignIn(session: Session): boolean {
  return (session.login && !session.signedIn) || session.apiNeedsCredentials === true;
}

/** The session after the API answered 401: signed out, or, with no login in front, a dead end to explain. */
export function afterUnauthenticated(session: Session): Session {
  return session.login ? { ...session, signedIn: false } : { ...session, apiNeedsCredentials: true };
}

/**
 * The link that starts an OpenID Connect sign-in with `providerId` and brings the person back
 * to `route` afterwards. The route lives in the URL fragment, which the browser never sends,
 * so it travels as `return_to=/#/…`; the proxy keeps it only when it is a path on itself
 * (anything else lands on `/`) and redirects there after the provider's callback.
 */
export function providerLoginHref(providerId: string, route: Route): string {
  return `/auth/login/${encodeURIComponent(providerId)}?return_to=${encodeURIComponent(`/${routeHash(route)}`)}`;
}
