import { describe, expect, it } from "vitest";
import { databaseErrorCode, isDatabaseUnavailable } from "./db-unavailable.js";

const pgError = (code: string) => Object.assign(new Error("x"), { name: "PostgresError", code });
const wrapped = (cause: unknown) => Object.assign(new Error("Failed query: select 1\nparams: secret"), { cause });

describe("isDatabaseUnavailable", () => {
  it("is true for a lost, refused or timed-out connection, also wrapped by drizzle", () => {
    for (const code of ["CONNECTION_CLOSED", "CONNECTION_DESTROYED", "CONNECT_TIMEOUT", "ECONNREFUSED", "ECONNRESET"]) {
      expect(isDatabaseUnavailable(Object.assign(new Error(code), { code })), code).toBe(true);
      expect(isDatabaseUnavailable(wrapped(Object.assign(new Error(code), { code }))), code).toBe(true);
    }
  });

  it("is true for a server shutting down, starting up, cancelling a statement, out of connections or read-only", () => {
    for (const state of ["57P01", "57P02", "57P03", "57014", "25P03", "53300", "08006", "08001", "25006"])
      expect(isDatabaseUnavailable(wrapped(pgError(state))), state).toBe(true);
  });

  it("is false for errors of the request or the code: constraint violations, syntax, plain errors", () => {
    for (const state of ["23505", "42601", "40001", "22P02"])
      expect(isDatabaseUnavailable(wrapped(pgError(state))), state).toBe(false);
    expect(isDatabaseUnavailable(new Error("boom"))).toBe(false);
    expect(
      isDatabaseUnavailable(Object.assign(new Error("x"), { code: "57P01" })),
      "a SQLSTATE only from PostgreSQL",
    ).toBe(false);
    expect(isDatabaseUnavailable(undefined)).toBe(false);
  });

  it("reports the code for logs, never the message", () => {
    expect(databaseErrorCode(wrapped(pgError("57P01")))).toBe("57P01");
    expect(databaseErrorCode(new Error("no code"))).toBeUndefined();
  });
});
