import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SignJWT } from "jose";
import { freshPgliteDir } from "@baton/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_CONFIG, type ServerConfig } from "../config.js";
import { ApiError } from "../http/api-error.js";
import { createLogger } from "@baton/log";
import { type Clock, createClock } from "../clock.js";
import { type Database, openDatabase } from "../storage/db.js";
import { type Authenticator, checkAuthConfig, createAuthenticator, OPEN_PRINCIPAL } from "./index.js";
import { LAST_USED_RESOLUTION_MS } from "./token-authentication.js";
import { findTokenBySecret, issueToken, listTokenRows, revokeToken } from "./token-store.js";

let database: Database;
const dir = mkdtempSync(join(tmpdir(), "baton-auth-"));
const secretFile = join(dir, "jwt-secret");
const JWT_SECRET = "a-shared-secret-of-at-least-32-characters";

beforeAll(async () => {
  writeFileSync(secretFile, `${JWT_SECRET}\n`);
  database = await openDatabase(
    process.env.DATABASE_URL ? { url: process.env.DATABASE_URL } : { dataDir: await freshPgliteDir() },
  );
});
afterAll(async () => {
  await database?.close();
  rmSync(dir, { recursive: true, force: true });
});

function logCapture() {
  const lines: string[] = [];
  return { lines, log: createLogger("debug", (line) => lines.push(line)) };
}

function config(overrides: Partial<ServerConfig>): ServerConfig {
  return { ...DEFAULT_CONFIG, ...overrides };
}

async function refusal(authenticator: Authenticator, header: string | undefined): Promise<ApiError> {
  try {
    await authenticator.authenticate(header);
  } catch (error) {
    return error as ApiError;
  }
  throw new Error("expected the credential to be refused");
}

describe("createAuthenticator under --auth none", () => {
  it("admits everyone as admin without an identity, whatever the header says", async () => {
    const { log } = logCapture();
    const auth = await createAuthenticator(config({ auth: "none" }), { db: database.db, clock: createClock(), log });
    expect(await auth.authenticate(undefined)).toEqual(OPEN_PRINCIPAL);
    expect(await auth.authenticate("Bearer svc_sk_forged")).toEqual({ actor: null, perms: ["admin"], scopes: null });
  });

  it("warns at start when the bind address is beyond loopback", async () => {
    for (const host of ["0.0.0.0", "::", "10.0.0.5", "example.internal"]) {
      const { lines, log } = logCapture();
      await createAuthenticator(config({ auth: "none", host }), { db: database.db, clock: createClock(), log });
      expect(lines, host).toHaveLength(1);
      expect(JSON.parse(lines[0]!)).toMatchObject({ level: "warn", auth: "none", host });
      expect(lines[0]).toContain("--auth token");
    }
  });

  it("stays quiet on loopback", async () => {
    for (const host of ["127.0.0.1", "localhost", "::1", "127.1.2.3"]) {
      const { lines, log } = logCapture();
      await createAuthenticator(config({ auth: "none", host }), { db: database.db, clock: createClock(), log });
      expect(lines, host).toEqual([]);
    }
  });
});

describe("createAuthenticator start-up checks", () => {
  it("refuses incomplete JWT flags, naming the missing ones", async () => {
    const { log } = logCapture();
    await expect(
      createAuthenticator(config({ auth: "token", jwtSecretFile: secretFile }), {
        db: database.db,
        clock: createClock(),
        log,
      }),
    ).rejects.toThrow(
      "JWT sign-in needs --jwt-secret-file, --jwt-issuer and --jwt-audience together; missing --jwt-issuer and --jwt-audience",
    );
  });

  it("refuses a short secret file with one line that does not quote it", async () => {
    const short = join(dir, "short");
    writeFileSync(short, "too-short-secret\n");
    const { log } = logCapture();
    const attempt = createAuthenticator(
      config({ auth: "token", jwtSecretFile: short, jwtIssuer: "i", jwtAudience: "a" }),
      { db: database.db, clock: createClock(), log },
    );
    await expect(attempt).rejects.toThrow(
      /^--jwt-secret-file .*short: the secret is 16 characters after trimming whitespace; at least 32 are required$/,
    );
  });

  it("checks the JWT flags under --auth none too, and warns that they have no effect", async () => {
    const { lines, log } = logCapture();
    await expect(
      createAuthenticator(
        config({ auth: "none", jwtSecretFile: join(dir, "missing"), jwtIssuer: "i", jwtAudience: "a" }),
        { db: database.db, clock: createClock(), log },
      ),
    ).rejects.toThrow("no such file");
    await createAuthenticator(config({ auth: "none", jwtSecretFile: secretFile, jwtIssuer: "i", jwtAudience: "a" }), {
      db: database.db,
      clock: createClock(),
      log,
    });
    expect(lines.join("")).toContain("have no effect under --auth none");
  });
});

describe("createAuthenticator under --auth token", () => {
  let clock: Clock;
  let auth: Authenticator;
  let lines: string[];

  beforeAll(async () => {
    clock = createClock();
    const capture = logCapture();
    lines = capture.lines;
    auth = await createAuthenticator(
      config({ auth: "token", jwtSecretFile: secretFile, jwtIssuer: "baton-proxy", jwtAudience: "baton" }),
      {
        db: database.db,
        clock,
        log: capture.log,
      },
    );
  });

  it("refuses a missing header with 401 and WWW-Authenticate: Bearer", async () => {
    const error = await refusal(auth, undefined);
    expect(error).toBeInstanceOf(ApiError);
    expect(error.status).toBe(401);
    expect(error.code).toBe("unauthenticated");
    expect(error.headers).toEqual({ "WWW-Authenticate": "Bearer" });
  });

  it("admits an issued token as token:<id> with its permissions", async () => {
    const issued = await issueToken(
      database.db,
      { label: "ci", perms: ["deploy", "read"], expiresAt: null },
      { now: clock.now(), actor: null },
    );
    expect(await auth.authenticate(`Bearer ${issued.token}`)).toEqual({
      actor: `token:${issued.id}`,
      perms: ["deploy", "read"],
      scopes: null,
    });
  });

  it("admits a token with null perms with no permissions (authorize then refuses it)", async () => {
    const issued = await issueToken(
      database.db,
      { label: "none", perms: null, expiresAt: null },
      { now: clock.now(), actor: null },
    );
    expect(await auth.authenticate(`Bearer ${issued.token}`)).toEqual({
      actor: `token:${issued.id}`,
      perms: [],
      scopes: null,
    });
  });

  it("refuses an unknown token of the right shape", async () => {
    expect((await refusal(auth, `Bearer svc_sk_${"B".repeat(43)}`)).message).toBe(
      "the svc_sk_ token is not known to this server",
    );
    expect((await refusal(auth, "Bearer svc_sk_short")).message).toBe(
      "the svc_sk_ token is malformed (it was not issued by this service)",
    );
  });

  it("refuses a revoked token on the very next call", async () => {
    const issued = await issueToken(
      database.db,
      { label: "to revoke", perms: ["read"], expiresAt: null },
      { now: clock.now(), actor: null },
    );
    await auth.authenticate(`Bearer ${issued.token}`);
    expect(await revokeToken(database.db, issued.id, { now: clock.now(), actor: "token:someone" })).toBe("revoked");
    expect((await refusal(auth, `Bearer ${issued.token}`)).message).toBe("the svc_sk_ token has been revoked");
    expect(
      await revokeToken(database.db, issued.id, { now: clock.now(), actor: null }),
      "a second revocation changes nothing",
    ).toBe("already_revoked");
    const row = await findTokenBySecret(database.db, issued.token);
    expect(row?.revokedBy, "the first revoker stays recorded").toBe("token:someone");
    expect(await revokeToken(database.db, "no-such-id", { now: clock.now(), actor: null })).toBe("unknown");
  });

  it("refuses an expired token, judged by the service clock", async () => {
    const local = createClock();
    const expiring = await createAuthenticator(config({ auth: "token" }), {
      db: database.db,
      clock: local,
      log: logCapture().log,
    });
    const issued = await issueToken(
      database.db,
      { label: "short-lived", perms: ["read"], expiresAt: local.now() + 60_000 },
      { now: local.now(), actor: null },
    );
    await expiring.authenticate(`Bearer ${issued.token}`);
    local.advance(60_000);
    expect((await refusal(expiring, `Bearer ${issued.token}`)).message).toMatch(/^the svc_sk_ token expired at \d{4}-/);
  });

  it("records last_used_at on first use and then at most once per resolution", async () => {
    const local = createClock();
    const counting = await createAuthenticator(config({ auth: "token" }), {
      db: database.db,
      clock: local,
      log: logCapture().log,
    });
    const issued = await issueToken(
      database.db,
      { label: "usage", perms: ["read"], expiresAt: null },
      { now: local.now(), actor: null },
    );
    expect((await findTokenBySecret(database.db, issued.token))?.lastUsedAt).toBeNull();
    const first = local.now();
    await counting.authenticate(`Bearer ${issued.token}`);
    const afterFirst = (await findTokenBySecret(database.db, issued.token))?.lastUsedAt;
    expect(afterFirst).toBeGreaterThanOrEqual(first);
    local.advance(1000);
    await counting.authenticate(`Bearer ${issued.token}`);
    expect((await findTokenBySecret(database.db, issued.token))?.lastUsedAt).toBe(afterFirst);
    local.advance(LAST_USED_RESOLUTION_MS);
    await counting.authenticate(`Bearer ${issued.token}`);
    expect((await findTokenBySecret(database.db, issued.token))?.lastUsedAt).toBeGreaterThan(afterFirst!);
  });

  it("admits a valid JWT as its sub with its perms", async () => {
    const jwt = await new SignJWT({ perms: ["operate"] })
      .setProtectedHeader({ alg: "HS256" })
      .setSubject("ada@example.com")
      .setIssuer("baton-proxy")
      .setAudience("baton")
      .setExpirationTime(Math.floor(clock.now() / 1000) + 60)
      .sign(new TextEncoder().encode(JWT_SECRET));
    expect(await auth.authenticate(`Bearer ${jwt}`)).toEqual({
      actor: "ada@example.com",
      perms: ["operate"],
      scopes: null,
    });
  });

  it("refuses a JWT when the server has no JWT settings", async () => {
    const tokensOnly = await createAuthenticator(config({ auth: "token" }), {
      db: database.db,
      clock,
      log: logCapture().log,
    });
    const jwt = await new SignJWT({ perms: ["admin"] })
      .setProtectedHeader({ alg: "HS256" })
      .setSubject("x")
      .setExpirationTime("1m")
      .sign(new TextEncoder().encode(JWT_SECRET));
    expect((await refusal(tokensOnly, `Bearer ${jwt}`)).message).toMatch(/^this server accepts no JWTs/);
  });

  it("never writes a credential into the log", async () => {
    const issued = await issueToken(
      database.db,
      { label: "log check", perms: ["read"], expiresAt: null },
      { now: clock.now(), actor: null },
    );
    await auth.authenticate(`Bearer ${issued.token}`);
    await refusal(auth, `Basic ${issued.token}`);
    await refusal(auth, `Bearer ${issued.token.slice(0, -1)}x`);
    const text = lines.join("");
    expect(text).toContain("credential refused");
    expect(text, "messages may name the svc_sk_ kind, never a secret").not.toMatch(/svc_sk_[A-Za-z0-9_-]{8}/);
    expect(text).not.toContain(issued.token.slice(7));
  });

  it("stores only the hash: no column holds the secret", async () => {
    const issued = await issueToken(
      database.db,
      { label: "hash only", perms: ["read"], expiresAt: null },
      { now: clock.now(), actor: null },
    );
    const row = (await listTokenRows(database.db)).find((r) => r.id === issued.id);
    expect(JSON.stringify(row)).not.toContain(issued.token.slice(7));
  });
});

describe("checkAuthConfig", () => {
  it("refuses what createAuthenticator refuses, without a database", () => {
    expect(() => checkAuthConfig(config({ auth: "token" }))).not.toThrow();
    expect(() => checkAuthConfig(config({ auth: "token", jwtIssuer: "i" }))).toThrow(
      "missing --jwt-secret-file and --jwt-audience",
    );
    expect(() =>
      checkAuthConfig(config({ auth: "token", jwtSecretFile: join(dir, "missing"), jwtIssuer: "i", jwtAudience: "a" })),
    ).toThrow("cannot read it (no such file)");
    expect(() => checkAuthConfig(config({ auth: "basic" as never }))).toThrow(
      "--auth basic is not an auth mode; expected none or token",
    );
  });
});
