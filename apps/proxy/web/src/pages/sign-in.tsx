import { type FormEvent, useState } from "react";
import { passwordLogin } from "../auth.js";
import type { Route } from "../route.js";
import { providerLoginHref, type Session } from "../session.js";

/** `route`: the page the person asked for, shown again once signed in (a provider link carries it as return_to). */
export function SignInPage({ session, route, onSignedIn }: { session: Session; route: Route; onSignedIn: () => void }) {
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const refused = await passwordLogin(email, password);
      if (refused) setError(refused);
      else onSignedIn();
    } catch (failure) {
      setError(failure instanceof Error ? failure.message : String(failure));
    } finally {
      setBusy(false);
    }
  }

  return (
    <main className="sign-in">
      <h1>Sign in to Baton</h1>
      {session.passwordLogin && (
        <form onSubmit={submit} aria-label="Sign in with a password">
          <label>
            Email
            <input
              type="email"
              autoComplete="username"
              required
              value={email}
              onChange={(e) => setEmail(e.target.value)}
            />
          </label>
          <label>
            Password
            <input
              type="password"
              autoComplete="current-password"
              required
              value={password}
              onChange={(e) => setPassword(e.target.value)}
            />
          </label>
          {error && (
            <p className="error" role="alert">
              {error}
            </p>
          )}
          <button type="submit" disabled={busy}>
            Sign in
          </button>
        </form>
      )}
      {session.providers.length > 0 && (
        <ul className="providers">
          {session.providers.map((provider) => (
            <li key={provider.id}>
              <a className="button" href={providerLoginHref(provider.id, route)}>
                Sign in with {provider.name}
              </a>
            </li>
          ))}
        </ul>
      )}
      {session.apiNeedsCredentials ? (
        <p role="alert" className="error">
          The API requires credentials, but no sign-in is configured in front of it: baton-proxy was started without a
          config (or its config has no login), so it forwards requests as they are and cannot sign you in. Start
          baton-proxy with a config whose login lists passwords or OpenID Connect providers (docs/proxy.md), or run the
          API with --auth none for local development.
        </p>
      ) : (
        !session.passwordLogin &&
        session.providers.length === 0 && <p>No sign-in method is configured on this proxy.</p>
      )}
    </main>
  );
}
