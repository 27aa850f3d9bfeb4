import { describe, expect, it } from "vitest";
import { NO_LOGIN, needsSignIn, sessionFromAnswer } from "./session.js";

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

  it("reads a signed-in session with its permissions", () => {
    const session = sessionFromAnswer(200, { login: true, signed_in: true, subject: "ann@example.com", permissions: ["read"], providers: [], password_login: true });
    expect(needsSignIn(session)).toBe(false);
    expect(session.subject).toBe("ann@example.com");
    expect(session.permissions).toEqual(["read"]);
  });

  it("refuses server errors and malformed bodies instead of guessing", () => {
    expect(() => sessionFromAnswer(500, {})).toThrow(/answered 500/);
    expect(() => sessionFromAnswer(200, "<html>")).toThrow(/login and signed_in/);
  });
});
