import type { SignedIn, SignIn } from "./sign-in.js";

/** The body of `GET /auth/session` (and of login/logout answers): a contract with the UI, do not reshape it. */
export interface SessionView {
  login: boolean;
  signed_in: boolean;
  subject: string | null;
  permissions: string[] | null;
  /** The signed-in person's scope patterns; null: every process, or signed out (docs/auth.md "Scopes"). */
  scopes: string[] | null;
  providers: { id: string; name: string }[];
  password_login: boolean;
  /** The tracing tool's page of a trace, `{trace_id}` to replace (config `trace_url`); null when not configured. */
  trace_url: string | null;
}

export function sessionView(signIn: SignIn | null, who: SignedIn | null, traceUrl?: string): SessionView {
  return {
    login: signIn !== null,
    signed_in: who !== null,
    subject: who?.session.subject ?? null,
    permissions: who?.permissions ?? null,
    scopes: who?.scopes ?? null,
    providers: [...(signIn?.providers.values() ?? [])].map((p) => ({ id: p.id, name: p.name })),
    password_login: signIn?.passwordLogin ?? false,
    trace_url: traceUrl ?? null,
  };
}
