import { createHash } from "node:crypto";
import { request, startServer, type TestServer, type SharedDatabase, sharedDatabase } from "@baton/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  bearer,
  bootstrapToken,
  JWT_PATTERN,
  jwtFlags,
  jwtSecretFile,
  mintJwt,
  TOKEN_SECRET_PATTERN,
  unsignedJwt,
} from "../../support/auth-fixtures.js";

// One server with --auth token, JWT sign-in and --log-level debug; every credential used
// here is remembered so the last test can prove none of them reached the log.

let database: SharedDatabase;
let secretFile: ReturnType<typeof jwtSecretFile>;
let server: TestServer;
let admin: string;
const usedCredentials: string[] = [];

beforeAll(async () => {
  database = await sharedDatabase();
  secretFile = jwtSecretFile();
  admin = await bootstrapToken(database, "credentials admin", "admin");
  usedCredentials.push(admin);
  server = await startServer({
    database: database.location,
    args: ["--auth", "token", "--poll", "0", "--log-level", "debug", ...jwtFlags(secretFile.path)],
  });
});

afterAll(async () => {
  await server?.stop();
  await database?.dispose();
  secretFile?.dispose();
});

const call = (
  method: string,
  path: string,
  credential?: string,
  body?: unknown,
  headers: Record<string, string> = {},
) => request(server.url, method, path, body, { ...(credential ? bearer(credential) : {}), ...headers });

async function createToken(body: Record<string, unknown>) {
  const res = await call("POST", "/api/tokens", admin, body);
  if (res.status === 200) usedCredentials.push(res.body.token);
  return res;
}

function expectUnauthenticated(res: Awaited<ReturnType<typeof call>>, reason: RegExp) {
  expect(res.status, res.text).toBe(401);
  expect(res.body.code).toBe("unauthenticated");
  expect(res.body.error).toMatch(reason);
  expect(res.headers.get("www-authenticate")).toBe("Bearer");
}

describe("POST /api/tokens", () => {
  it("returns the secret once with id, label, perms, scopes, created_at and expires_at", async () => {
    const res = await createToken({ label: "ci deploy", perms: ["deploy", "read"] });
    expect(res.status, res.text).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual([
      "created_at",
      "expires_at",
      "id",
      "label",
      "perms",
      "scopes",
      "token",
    ]);
    // scopes (extension, docs/auth.md "Scopes"): an admin without scopes mints a token without them.
    expect(res.body).toMatchObject({ label: "ci deploy", perms: ["deploy", "read"], scopes: null, expires_at: null });
    expect(res.body.token).toMatch(new RegExp(`^${TOKEN_SECRET_PATTERN.source}$`));
    expect(Date.parse(res.body.created_at)).not.toBeNaN();
  });

  it("admits the new token with exactly its permissions", async () => {
    const { body } = await createToken({ label: "reader", perms: ["read"] });
    expect((await call("GET", "/api/definitions", body.token)).status).toBe(200);
    const refused = await call("PUT", "/api/channels", body.token, { name: "x", channel: "y", version: 1 });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({
      code: "forbidden",
      error: "this endpoint needs one of the permissions: deploy, admin (the credential has read)",
    });
  });

  it("creates a token without permissions from perms null: it authenticates but is admitted nowhere", async () => {
    const res = await createToken({ label: "nothing", perms: null });
    expect(res.status, res.text).toBe(200);
    expect(res.body.perms).toBeNull();
    expect((await call("GET", "/api/definitions", res.body.token)).status).toBe(403);
  });

  it("refuses unknown permission names, a missing label or perms, with 400 invalid", async () => {
    for (const body of [
      { label: "x", perms: ["read", "superuser"] },
      { perms: ["read"] },
      { label: "x" },
      { label: "", perms: [] },
    ]) {
      const res = await createToken(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.code).toBe("invalid");
      expect(res.body.fields?.length, `${JSON.stringify(body)} → ${res.text}`).toBeGreaterThan(0);
    }
  });

  it("takes expires_in or expires_at, not both, and never a past instant", async () => {
    const inOneHour = await createToken({ label: "short", perms: ["read"], expires_in: 3_600_000 });
    expect(inOneHour.status, inOneHour.text).toBe(200);
    expect(Date.parse(inOneHour.body.expires_at) - Date.parse(inOneHour.body.created_at)).toBe(3_600_000);
    const at = await createToken({ label: "dated", perms: ["read"], expires_at: "2099-01-01T00:00:00Z" });
    expect(at.body.expires_at).toBe("2099-01-01T00:00:00.000Z");
    const both = await createToken({
      label: "both",
      perms: ["read"],
      expires_in: 1000,
      expires_at: "2099-01-01T00:00:00Z",
    });
    expect(both.status).toBe(400);
    expect(both.body.error).toContain("not both");
    const past = await createToken({ label: "past", perms: ["read"], expires_at: "2001-01-01T00:00:00Z" });
    expect(past.status).toBe(400);
    expect(past.body.error).toContain("must be in the future");
  });
});

describe("GET /api/tokens", () => {
  it("lists every token without any secret or hash, with last_used_at once used", async () => {
    const { body: made } = await createToken({ label: "listed", perms: ["worker"] });
    await call("GET", "/api/objects/abc", made.token);
    const res = await call("GET", "/api/tokens", admin);
    expect(res.status).toBe(200);
    const item = res.body.items.find((t: any) => t.id === made.id);
    expect(Object.keys(item).sort()).toEqual([
      "created_at",
      "expires_at",
      "id",
      "label",
      "last_used_at",
      "perms",
      "revoked_at",
      "scopes",
    ]);
    expect(item).toMatchObject({
      label: "listed",
      perms: ["worker"],
      scopes: null,
      revoked_at: null,
      expires_at: null,
    });
    expect(item.last_used_at, "the token authenticated one request").not.toBeNull();
    for (const secret of usedCredentials) {
      expect(res.text).not.toContain(secret.slice(7));
      expect(res.text).not.toContain(createHash("sha256").update(secret).digest("hex"));
    }
    expect(res.text).not.toMatch(TOKEN_SECRET_PATTERN);
  });

  it("lists newest first", async () => {
    const ids = (await call("GET", "/api/tokens", admin)).body.items.map((t: any) => t.id);
    expect(ids).toEqual([...ids].sort().reverse());
  });
});

describe("DELETE /api/tokens/{id}", () => {
  it("revokes: the very next request with the token is refused", async () => {
    const { body: made } = await createToken({ label: "doomed", perms: ["read"] });
    expect((await call("GET", "/api/definitions", made.token)).status).toBe(200);
    const revoked = await call("DELETE", `/api/tokens/${made.id}`, admin);
    expect(revoked.status, revoked.text).toBe(200);
    expect(revoked.body).toEqual({ revoked: true });
    expectUnauthenticated(await call("GET", "/api/definitions", made.token), /revoked/);
    const listed = (await call("GET", "/api/tokens", admin)).body.items.find((t: any) => t.id === made.id);
    expect(listed.revoked_at).not.toBeNull();
  });

  it("answers revoked false the second time and 404 for an unknown id", async () => {
    const { body: made } = await createToken({ label: "twice", perms: ["read"] });
    expect((await call("DELETE", `/api/tokens/${made.id}`, admin)).body).toEqual({ revoked: true });
    expect((await call("DELETE", `/api/tokens/${made.id}`, admin)).body).toEqual({ revoked: false });
    const unknown = await call("DELETE", "/api/tokens/01900000-0000-7000-8000-000000000000", admin);
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe("not_found");
  });

  it("lets an admin token revoke itself, effective at once", async () => {
    const { body: second } = await createToken({ label: "second admin", perms: ["admin"] });
    expect((await call("DELETE", `/api/tokens/${second.id}`, second.token)).body).toEqual({ revoked: true });
    expectUnauthenticated(await call("GET", "/api/tokens", second.token), /revoked/);
  });
});

describe("svc_sk_ tokens that are not valid", () => {
  it("refuses an unknown, a truncated and a tampered secret", async () => {
    const { body: made } = await createToken({ label: "original", perms: ["read"] });
    const last = made.token.at(-1) === "A" ? "B" : "A";
    expectUnauthenticated(await call("GET", "/api/definitions", `svc_sk_${"Z".repeat(43)}`), /not known/);
    expectUnauthenticated(await call("GET", "/api/definitions", made.token.slice(0, -1)), /malformed/);
    expectUnauthenticated(await call("GET", "/api/definitions", made.token.slice(0, -1) + last), /not known/);
  });
});

describe("JWTs from the sign-in proxy", () => {
  async function withJwt(jwt: string, path = "/api/definitions") {
    usedCredentials.push(jwt);
    return call("GET", path, jwt);
  }

  it("admits a valid JWT with the permissions of its perms claim", async () => {
    expect((await withJwt(await mintJwt({ perms: ["read"] }))).status).toBe(200);
    expect((await withJwt(await mintJwt({ perms: ["read"] }), "/api/tokens")).status).toBe(403);
    expect((await withJwt(await mintJwt({ perms: ["admin"] }), "/api/tokens")).status).toBe(200);
  });

  it("refuses an expired JWT", async () => {
    expectUnauthenticated(await withJwt(await mintJwt({ perms: ["read"], expiresIn: -120 })), /expired/);
  });

  it("refuses a JWT for another audience", async () => {
    expectUnauthenticated(await withJwt(await mintJwt({ perms: ["read"], audience: "another-api" })), /audience/);
  });

  it("refuses a JWT from another issuer", async () => {
    expectUnauthenticated(await withJwt(await mintJwt({ perms: ["read"], issuer: "someone-else" })), /issuer/);
  });

  it("refuses a JWT signed with another secret", async () => {
    expectUnauthenticated(
      await withJwt(await mintJwt({ perms: ["read"], secret: "a-different-secret-that-is-long-enough-too" })),
      /signature/,
    );
  });

  it("refuses an unsigned JWT (alg none)", async () => {
    expectUnauthenticated(await withJwt(unsignedJwt(["admin"]), "/api/tokens"), /HS256/);
  });

  it("refuses a JWT without a perms claim", async () => {
    expectUnauthenticated(await withJwt(await mintJwt({ perms: undefined })), /perms/);
  });
});

describe("nothing but Authorization: Bearer is an identity", () => {
  it("ignores cookies, forwarded-user headers, other auth headers and query parameters", async () => {
    const attempts: Record<string, string>[] = [
      { cookie: `session=${admin}; token=${admin}` },
      { "x-forwarded-user": "admin", "x-remote-user": "admin", "x-forwarded-email": "admin@example.com" },
      { "proxy-authorization": `Bearer ${admin}` },
      { "x-api-key": admin, "x-baton-token": admin },
    ];
    for (const headers of attempts) {
      expectUnauthenticated(await call("GET", "/api/tokens", undefined, undefined, headers), /needs a credential/);
    }
    expectUnauthenticated(await call("GET", `/api/tokens?access_token=${admin}`), /needs a credential/);
  });
});

describe("expiry follows the service clock", () => {
  it("refuses a token past its expires_in once /tick advance_ms moves the clock beyond it", async () => {
    const { body: made } = await createToken({ label: "ticking", perms: ["read"], expires_in: 60_000 });
    expect((await call("GET", "/api/definitions", made.token)).status).toBe(200);
    const tick = await call("POST", "/api/tick", admin, { advance_ms: 61_000 });
    expect(tick.status, tick.text).toBe(200);
    expectUnauthenticated(await call("GET", "/api/definitions", made.token), /expired/);
    expect((await call("GET", "/api/definitions", admin)).status, "a token without expiry is unaffected").toBe(200);
  });
});

describe("the server log", () => {
  it("never contains a secret or a JWT, even at --log-level debug", async () => {
    const log = server.stderr();
    expect(log, "the debug log did record the refusals").toContain("credential refused");
    expect(usedCredentials.length).toBeGreaterThan(15);
    for (const credential of usedCredentials)
      expect(log.includes(credential), "a credential appears in the log").toBe(false);
    expect(log).not.toMatch(TOKEN_SECRET_PATTERN);
    expect(log).not.toMatch(JWT_PATTERN);
  });
});
