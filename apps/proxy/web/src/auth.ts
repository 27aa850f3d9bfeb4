// The sign-in proxy's own endpoints (not part of the API registry).

import { type Session, sessionFromAnswer } from "./session.js";

// `accept: application/json` keeps dev servers (vite) from answering their index.html.
const JSON_HEADERS = { accept: "application/json" };

export async function fetchSession(): Promise<Session> {
  const response = await fetch("/auth/session", { headers: JSON_HEADERS, credentials: "same-origin" });
  const body = response.status === 404 ? undefined : await response.json().catch(() => undefined);
  return sessionFromAnswer(response.status, body);
}

/** Signs in with a password; resolves to an error sentence when the proxy refused. */
export async function passwordLogin(email: string, password: string): Promise<string | null> {
  const response = await fetch("/auth/login", {
    method: "POST",
    headers: { ...JSON_HEADERS, "content-type": "application/json" },
    body: JSON.stringify({ email, password }),
    credentials: "same-origin",
  });
  if (response.ok) return null;
  const body = (await response.json().catch(() => undefined)) as { error?: unknown } | undefined;
  return typeof body?.error === "string" ? body.error : `sign-in failed (${response.status})`;
}

export async function logout(): Promise<void> {
  await fetch("/auth/logout", { method: "POST", headers: JSON_HEADERS, credentials: "same-origin" });
}
