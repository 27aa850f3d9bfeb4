import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import bcrypt from "bcryptjs";
import { describe, expect, it } from "vitest";
import { ConfigError, DEFAULT_SCOPES, loadConfigFile, parseConfig } from "./config.js";

const HASH = bcrypt.hashSync("correct horse", 4);
const SECRET = "s".repeat(32);

function refusal(yaml: string, readSecretFile?: (path: string) => string): ConfigError {
  try {
    parseConfig(yaml, "proxy.yaml", readSecretFile);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error("the config was accepted");
}

const withLogin = (token: string) => `
server: http://127.0.0.1:8449
login:
  passwords:
    - { email: ann@example.com, hash: "${HASH}" }
${token}`;

describe("parseConfig", () => {
  it("reads every field of a full config and fills the defaults", () => {
    const config = parseConfig(
      `
server: http://api:8449
listen: 127.0.0.1:9000
redirect_url: https://baton.example.com/auth/callback
secure_cookie: true
session_ttl: 8h
login:
  passwords:
    - email: ann@example.com
      hash: "${HASH}"
      groups: [ops]
  providers:
    - id: corp
      name: Corp SSO
      issuer: https://sso.example.com
      discovery_url: https://sso.example.com/.well-known/openid-configuration
      client_id: baton
      client_secret: shh
      scopes: [openid, email]
      subject_claim: preferred_username
      groups_claim: roles
      jwks_url: https://sso.example.com/jwks
      token_url: https://sso.example.com/token
    - { id: other, issuer: "https://other.example.com", client_id: c, client_secret: s }
token:
  issuer: proxy
  audience: api
  secret: "${SECRET}"
  ttl: 30s
roles:
  ops: [read, operate]
  "*": [read]
users:
  ann@example.com: [admin]
`,
      "proxy.yaml",
    );
    expect(config).toEqual({
      server: "http://api:8449",
      listen: "127.0.0.1:9000",
      redirectUrl: "https://baton.example.com/auth/callback",
      secureCookie: true,
      sessionTtlMs: 8 * 3_600_000,
      login: {
        passwords: [{ email: "ann@example.com", hash: HASH, groups: ["ops"] }],
        providers: [
          {
            id: "corp",
            name: "Corp SSO",
            issuer: "https://sso.example.com",
            discoveryUrl: "https://sso.example.com/.well-known/openid-configuration",
            clientId: "baton",
            clientSecret: "shh",
            scopes: ["openid", "email"],
            subjectClaim: "preferred_username",
            groupsClaim: "roles",
            jwksUrl: "https://sso.example.com/jwks",
            tokenUrl: "https://sso.example.com/token",
          },
          {
            id: "other",
            name: "other",
            issuer: "https://other.example.com",
            clientId: "c",
            clientSecret: "s",
            scopes: DEFAULT_SCOPES,
            subjectClaim: "email",
            groupsClaim: "groups",
          },
        ],
      },
      token: { issuer: "proxy", audience: "api", secret: SECRET, ttlMs: 30_000, scopesClaim: "scopes" },
      roles: { ops: ["read", "operate"], "*": ["read"] },
      users: { "ann@example.com": ["admin"] },
      roleScopes: {},
      userScopes: {},
      passwordThrottle: { accountFailures: 5, addressFailures: 20, maxDelayMs: 900_000 },
      trustedProxies: [],
    });
  });

  it("defaults session_ttl to 12h, token ttl to 1m and issuer/audience to baton-proxy/baton-api", () => {
    const config = parseConfig(withLogin(`token: { secret: "${SECRET}" }`));
    expect(config.sessionTtlMs).toBe(12 * 3_600_000);
    expect(config.token).toEqual({
      issuer: "baton-proxy",
      audience: "baton-api",
      secret: SECRET,
      ttlMs: 60_000,
      scopesClaim: "scopes",
    });
    expect(config.secureCookie, "omitted = follow the request scheme").toBeUndefined();
  });

  it("has no login when login lists neither passwords nor providers, and then needs no token", () => {
    const config = parseConfig("server: http://api:8449\nlogin: { passwords: [], providers: [] }\n");
    expect(config.login).toBeNull();
    expect(config.token).toBeNull();
  });

  it("accepts $2a$, $2b$ and $2y$ hashes", () => {
    for (const prefix of ["$2a$", "$2b$", "$2y$"]) {
      const hash = prefix + HASH.slice(4);
      expect(
        parseConfig(withLogin(`token: { secret: "${SECRET}" }`).replace(HASH, hash)).login!.passwords[0]!.hash,
      ).toBe(hash);
    }
  });

  it("accepts durations like 12h, 1m, 30s, 90m and 1h30m", () => {
    for (const [text, ms] of [
      ["12h", 43_200_000],
      ["1m", 60_000],
      ["30s", 30_000],
      ["90m", 5_400_000],
      ["1h30m", 5_400_000],
    ] as const) {
      expect(parseConfig(`server: http://a\nsession_ttl: ${text}\n`).sessionTtlMs).toBe(ms);
    }
  });

  it("accepts scopes as one space-separated string", () => {
    const config = parseConfig(
      withLogin(`token: { secret: "${SECRET}" }`).replace(
        "login:\n",
        "login:\n  providers: [{ id: p, issuer: 'https://i', client_id: c, client_secret: s, scopes: 'openid email' }]\n",
      ),
    );
    expect(config.login!.providers[0]!.scopes).toEqual(["openid", "email"]);
  });
});

describe("parseConfig refusals", () => {
  it("refuses text that is not YAML", () => {
    expect(refusal("server: [unclosed\n").message).toMatch(/^config proxy\.yaml: not valid YAML: /);
  });

  it("refuses a document that is not a mapping", () => {
    expect(refusal("- a\n- b\n").message).toBe("config proxy.yaml: (top level): must be a mapping, got a list");
  });

  it("requires server", () => {
    expect(refusal("listen: ':8448'\n").issues).toEqual(["server: is required (a string)"]);
  });

  it("refuses a server that is not an http(s) URL", () => {
    expect(refusal("server: api:8449\n").issues).toEqual(['server: "api:8449" must be an http:// or https:// URL']);
    expect(refusal("server: not a url\n").issues).toEqual([
      'server: "not a url" is not a URL; expected http://… or https://…',
    ]);
  });

  it("refuses unknown fields at the top and inside sections, naming the path and the allowed names", () => {
    expect(refusal("server: http://a\nsesion_ttl: 1h\n").issues).toEqual([
      "sesion_ttl: unknown field; expected one of server, listen, login, password_throttle, redirect_url, role_scopes, roles, secure_cookie, session_ttl, token, trace_url, trusted_proxies, user_scopes, users",
    ]);
    expect(refusal(withLogin(`token: { secret: "${SECRET}", ttls: 1m }`)).issues).toEqual([
      "token.ttls: unknown field; expected one of audience, issuer, scopes_claim, secret, secret_file, ttl",
    ]);
    expect(refusal(withLogin(`token: { secret: "${SECRET}" }`).replace("hash:", "pasword: x, hash:")).issues).toEqual([
      "login.passwords[0].pasword: unknown field; expected one of email, hash, groups",
    ]);
  });

  it("refuses a plaintext password without repeating it", () => {
    const error = refusal(withLogin(`token: { secret: "${SECRET}" }`).replace(`"${HASH}"`, "hunter2-plaintext"));
    expect(error.issues).toEqual([
      "login.passwords[0].hash: must be a bcrypt hash ($2a$, $2b$ or $2y$ followed by the cost and 53 characters); plaintext passwords are refused (see docs/proxy.md for making a hash)",
    ]);
    expect(error.message, "a plaintext password must never reach a log").not.toContain("hunter2");
  });

  it("refuses a password entry without email or hash, and the same email twice", () => {
    expect(
      refusal(`server: http://a\nlogin: { passwords: [{ groups: [a] }] }\ntoken: { secret: "${SECRET}" }\n`).issues,
    ).toEqual(["login.passwords[0].email: is required (a string)", "login.passwords[0].hash: is required (a string)"]);
    const twice = withLogin(`token: { secret: "${SECRET}" }`)
      .replace("  providers", "x")
      .replace("login:\n  passwords:\n", `login:\n  passwords:\n    - { email: ANN@example.com, hash: "${HASH}" }\n`);
    expect(refusal(twice).issues).toEqual(['login.passwords[1].email: "ann@example.com" is listed twice']);
  });

  it("refuses a token secret under 32 characters without quoting it", () => {
    const error = refusal(withLogin('token: { secret: "short-secret-31-characters-long" }'));
    expect(error.issues).toEqual(["token.secret: the secret is 31 characters; at least 32 are required"]);
    expect(error.message).not.toContain("short-secret");
  });

  it("needs exactly one of secret and secret_file", () => {
    expect(refusal(withLogin(`token: { secret: "${SECRET}", secret_file: /x }`)).issues).toEqual([
      "token: give exactly one of secret and secret_file, not both",
    ]);
    expect(refusal(withLogin("token: { issuer: p }")).issues).toEqual([
      "token: needs secret (at least 32 characters) or secret_file (a file holding it; the file baton-api reads with --jwt-secret-file)",
    ]);
  });

  it("reads secret_file with surrounding whitespace trimmed, and refuses a short or unreadable one", () => {
    const files: Record<string, string> = { "/ok": `\n  ${SECRET}  \n`, "/short": `  ${"x".repeat(31)}\n` };
    const read = (path: string) => {
      if (path in files) return files[path]!;
      throw Object.assign(new Error("nope"), { code: "ENOENT" });
    };
    expect(parseConfig(withLogin("token: { secret_file: /ok }"), "p", read).token!.secret).toBe(SECRET);
    expect(refusal(withLogin("token: { secret_file: /short }"), read).issues).toEqual([
      "token.secret_file /short: the secret is 31 characters; at least 32 are required",
    ]);
    expect(refusal(withLogin("token: { secret_file: /missing }"), read).issues).toEqual([
      "token.secret_file: cannot read /missing (no such file)",
    ]);
  });

  it("requires token once login has passwords or providers", () => {
    expect(refusal(withLogin("")).issues).toEqual([
      "token: required once login has passwords or providers (the secret, issuer and audience of the JWTs minted for the API)",
    ]);
  });

  it("refuses durations that are not Go-style, zero, or not strings", () => {
    expect(refusal("server: http://a\nsession_ttl: 12 hours\n").issues).toEqual([
      'session_ttl: "12 hours" is not a duration; expected e.g. 12h, 90m, 1h30m, 30s',
    ]);
    expect(refusal("server: http://a\nsession_ttl: 0s\n").issues).toEqual([
      'session_ttl: "0s" is not a duration; expected e.g. 12h, 90m, 1h30m, 30s',
    ]);
    expect(refusal("server: http://a\nsession_ttl: 3600\n").issues).toEqual([
      "session_ttl: a number is not a duration; expected e.g. 12h, 90m, 1h30m, 30s",
    ]);
    expect(refusal(withLogin(`token: { secret: "${SECRET}", ttl: 1s }`)).issues).toEqual([
      "token.ttl: must be at least 2s (the API checks exp in whole seconds)",
    ]);
  });

  it("refuses duplicate, missing and non-URL-safe provider ids", () => {
    const providers = (list: string) =>
      `server: http://a\nlogin:\n  providers: ${list}\ntoken: { secret: "${SECRET}" }\n`;
    const p = (id: string) => `{ id: "${id}", issuer: "https://i", client_id: c, client_secret: s }`;
    expect(refusal(providers(`[${p("corp")}, ${p("corp")}]`)).issues).toEqual([
      'login.providers[1].id: "corp" is used by another provider; ids must be unique',
    ]);
    expect(refusal(providers(`[${p("a/b")}]`)).issues).toEqual([
      'login.providers[0].id: "a/b" must be letters, digits, "-" or "_" (it is part of the URL /auth/login/<id>)',
    ]);
    expect(refusal(providers("[{ issuer: 'https://i', client_secret: s }]")).issues).toEqual([
      "login.providers[0].id: is required (a string)",
      "login.providers[0].client_id: is required (a string)",
    ]);
  });

  it("refuses provider URLs that are not http(s) and scopes without openid", () => {
    const base = `server: http://a\nlogin:\n  providers: [{ id: p, issuer: "ftp://i", client_id: c, client_secret: s, jwks_url: nope, scopes: [email] }]\ntoken: { secret: "${SECRET}" }\n`;
    expect(refusal(base).issues).toEqual([
      'login.providers[0].issuer: "ftp://i" must be an http:// or https:// URL',
      "login.providers[0].scopes: must include openid (the id_token carries the subject and groups)",
      'login.providers[0].jwks_url: "nope" is not a URL; expected http://… or https://…',
    ]);
  });

  it("refuses unknown permission names in roles and users", () => {
    expect(refusal("server: http://a\nroles: { ops: [read, operat] }\nusers: { ann: admin }\n").issues).toEqual([
      'roles.ops[1]: "operat" is not a permission; expected one of worker, read, operate, deploy, admin',
      "users.ann: must be a list of permissions (worker, read, operate, deploy, admin), got a string",
    ]);
  });

  it("refuses a bad listen address, a non-boolean secure_cookie and a bad redirect_url", () => {
    expect(
      refusal("server: http://a\nlisten: 'localhost'\nsecure_cookie: yes please\nredirect_url: /auth/callback\n")
        .issues,
    ).toEqual([
      'listen: "localhost" is not a listen address; expected HOST:PORT, :PORT or PORT (0-65535)',
      'redirect_url: "/auth/callback" is not a URL; expected http://… or https://…',
      "secure_cookie: must be true or false, got a string",
    ]);
  });

  it("refuses login and its lists when they have the wrong shape", () => {
    expect(refusal("server: http://a\nlogin: [x]\n").issues).toEqual(["login: must be a mapping, got a list"]);
    expect(refusal("server: http://a\nlogin: { passwords: {}, providers: x }\n").issues).toEqual([
      "login.passwords: must be a list, got a mapping",
      "login.providers: must be a list, got a string",
    ]);
  });
});

describe("loadConfigFile", () => {
  it("reads a relative secret_file next to the config file", () => {
    const dir = mkdtempSync(join(tmpdir(), "baton-proxy-config-"));
    writeFileSync(join(dir, "jwt-secret"), `${SECRET}\n`);
    writeFileSync(join(dir, "proxy.yaml"), withLogin("token: { secret_file: jwt-secret }"));
    expect(loadConfigFile(join(dir, "proxy.yaml")).token!.secret).toBe(SECRET);
  });

  it("names the file when it cannot be read", () => {
    expect(() => loadConfigFile("/nonexistent/proxy.yaml")).toThrow(
      "config /nonexistent/proxy.yaml: cannot read the file (no such file)",
    );
  });
});

describe("trusted_proxies", () => {
  it("reads IPs and CIDRs and refuses anything else, naming the index", () => {
    expect(parseConfig("server: http://a\ntrusted_proxies: [10.0.0.5, 10.1.0.0/16, '::1']").trustedProxies).toEqual([
      "10.0.0.5",
      "10.1.0.0/16",
      "::1",
    ]);
    expect(refusal("server: http://a\ntrusted_proxies: [lb.internal]").issues).toEqual([
      'trusted_proxies[0]: "lb.internal" is not an IP address or CIDR range (e.g. 10.0.0.5 or 10.0.0.0/8)',
    ]);
  });
});

describe("password_throttle", () => {
  it("defaults to 5 failures per account, 20 per address, up to 15 minutes, and reads overrides", () => {
    expect(parseConfig("server: http://a").passwordThrottle).toEqual({
      accountFailures: 5,
      addressFailures: 20,
      maxDelayMs: 15 * 60_000,
    });
    expect(
      parseConfig("server: http://a\npassword_throttle: { account_failures: 3, address_failures: 50, max_delay: 1h }")
        .passwordThrottle,
    ).toEqual({ accountFailures: 3, addressFailures: 50, maxDelayMs: 3_600_000 });
  });

  it("refuses unknown fields, counts that are not whole numbers from 1 to 1000, and bad durations", () => {
    expect(
      refusal(
        "server: http://a\npassword_throttle: { account_failures: 0, address_failures: x, max_delay: 5, tries: 1 }",
      ).issues,
    ).toEqual([
      expect.stringContaining("password_throttle.tries: unknown field"),
      "password_throttle.account_failures: must be a whole number from 1 to 1000 (got 0)",
      'password_throttle.address_failures: must be a whole number from 1 to 1000 (got "x")',
      "password_throttle.max_delay: a number is not a duration; expected e.g. 12h, 90m, 1h30m, 30s",
    ]);
  });
});
