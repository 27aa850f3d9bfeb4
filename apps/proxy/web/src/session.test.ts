import { describe, expect, it } from "vitest";
import { parseRoute, type Route } from "./route.js";
import { afterUnauthenticated, NO_LOGIN, needsSignIn, providerLoginHref, sessionFromAnswer } from "./session.js";

describe("sessionFromAnswer", () => {
  it("treats a 404 (no proxy in front) as no login with everything shown", () => {
    const session = sessionFromAnswer(404, undefined);
    expect(session).toEqual(NO_LOGIN);
    expect(session.permissions).toBeNull();
    expect(needsSignIn(session)).toBe(false);
  });

  it("reads a signed-out session with a password form and providers", () => {
    const session = sessionFromAnswer(200, {
      login: true,
      signed_in: false,
      subject: null,
      permissions: null,
      providers: [{ id: "google", name: "Google" }, { id: "corp" }],
      password_login: true,
    });
    expect(needsSignIn(session)).toBe(true);
    expect(session.providers).toEqual([
      { id: "google", name: "Google" },
      { id: "corp", name: "corp" },
    ]);
    expect(session.passwordLogin).toBe(true);
  });

  it("reads the tracing tool's URL template, and no template without {trace_id}", () => {
    const base = { login: false, signed_in: false, subject: null, permissions: null, providers: [] };
    expect(sessionFromAnswer(200, { ...base, trace_url: "https://tempo.example/t/{trace_id}" }).traceUrl).toBe(
      "https://tempo.example/t/{trace_id}",
    );
    expect(sessionFromAnswer(200, { ...base, trace_url: "https://tempo.example/" }).traceUrl).toBeNull();
    expect(sessionFromAnswer(200, base).traceUrl).toBeNull();
  });

  it("reads a signed-in session with its permissions", () => {
    const session = sessionFromAnswer(200, {
      login: true,
      signed_in: true,
      subject: "ann@example.com",
      permissions: ["read"],
      providers: [],
      password_login: true,
    });
    expect(needsSignIn(session)).toBe(false);
    expect(session.subject).toBe("ann@example.com");
    expect(session.permissions).toEqual(["read"]);
    expect(session.scopes, "no scopes in the answer: every process").toBeNull();
  });

  it("reads the person's scopes", () => {
    const session = sessionFromAnswer(200, {
      login: true,
      signed_in: true,
      subject: "olga@example.com",
      permissions: ["read"],
      scopes: ["orders-*"],
      providers: [],
      password_login: true,
    });
    expect(session.scopes).toEqual(["orders-*"]);
  });

  it("refuses server errors and malformed bodies instead of guessing", () => {
    expect(() => sessionFromAnswer(500, {})).toThrow(/answered 500/);
    expect(() => sessionFromAnswer(200, "<html>")).toThrow(/login and signed_in/);
  });
});

describe("providerLoginHref", () => {
  /** What the proxy reads from the link: the provider path and the return_to it will redirect to. */
  const read = (href: string) => {
    const url = new URL(href, "https://baton.example.com");
    return { path: url.pathname, returnTo: url.searchParams.get("return_to") };
  };

  it("carries the instance page the person opened as return_to, since the fragment never reaches the proxy", () => {
    expect(providerLoginHref("corp", { page: "instance", id: "0190-abc" })).toBe(
      "/auth/login/corp?return_to=%2F%23%2Finstances%2F0190-abc",
    );
    expect(read(providerLoginHref("corp", { page: "instance", id: "0190-abc" }))).toEqual({
      path: "/auth/login/corp",
      returnTo: "/#/instances/0190-abc",
    });
  });

  it("keeps a filtered list's query whole, inside the one return_to parameter", () => {
    const { returnTo } = read(providerLoginHref("corp", { page: "instances", search: "status=failed&process=order" }));
    expect(returnTo, "the & of the route must not split the proxy's query").toBe(
      "/#/instances?status=failed&process=order",
    );
  });

  it("gives back the same route once the proxy redirects to return_to", () => {
    const routes: Route[] = [
      { page: "instances", search: "" },
      { page: "instance", id: "a b/c" },
      { page: "compare", name: "order", from: 1, to: 2 },
      { page: "tokens" },
    ];
    for (const route of routes) {
      const { returnTo } = read(providerLoginHref("corp", route));
      expect(returnTo!.startsWith("/#/"), "a path on the proxy, which is all it accepts").toBe(true);
      expect(parseRoute(returnTo!.slice(1)), JSON.stringify(route)).toEqual(route);
    }
  });

  it("encodes the provider id into the path", () => {
    expect(read(providerLoginHref("a/b?c", { page: "channels" })).path).toBe("/auth/login/a%2Fb%3Fc");
  });
});

describe("afterUnauthenticated (the API answered 401)", () => {
  it("signs out a configured login, keeping its sign-in choices", () => {
    const session = sessionFromAnswer(200, {
      login: true,
      signed_in: true,
      subject: "ann",
      permissions: ["read"],
      providers: [],
      password_login: true,
    });
    const after = afterUnauthenticated(session);
    expect(after).toMatchObject({ login: true, signedIn: false, passwordLogin: true });
    expect(after.apiNeedsCredentials).toBeUndefined();
    expect(needsSignIn(after)).toBe(true);
  });

  it("with no login in front, shows the sign-in page with the cause instead of pretending a login exists", () => {
    const after = afterUnauthenticated(NO_LOGIN);
    expect(after).toMatchObject({ login: false, apiNeedsCredentials: true });
    expect(needsSignIn(after)).toBe(true);
  });
});
