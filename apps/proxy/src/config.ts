// Over 300 lines on purpose: the whole config schema in one place, each section's field list next
// to its checks, so the strict unknown-field refusals and the table in docs/proxy.md stay in step.
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { parse as parseYaml } from "yaml";
import { parseDuration } from "./duration.js";
import { parseTrustedProxy } from "./client-address.js";
import { parseListenAddress } from "./listen-address.js";
import { PERMISSIONS, isPermission } from "./permissions.js";

export const MIN_TOKEN_SECRET_LENGTH = 32;
export const DEFAULT_SESSION_TTL_MS = 12 * 3_600_000;
export const DEFAULT_TOKEN_TTL_MS = 60_000;
export const DEFAULT_TOKEN_ISSUER = "baton-proxy";
export const DEFAULT_TOKEN_AUDIENCE = "baton-api";
export const DEFAULT_SCOPES = ["openid", "email", "profile", "groups"];

export interface ProviderConfig {
  /** Stable, unique; part of `/auth/login/<id>`. */
  id: string;
  /** The sign-in button's label (default: the id). */
  name: string;
  issuer: string;
  discoveryUrl?: string;
  clientId: string;
  clientSecret: string;
  scopes: string[];
  subjectClaim: string;
  groupsClaim: string;
  jwksUrl?: string;
  tokenUrl?: string;
}

export interface PasswordEntry {
  email: string;
  /** bcrypt hash ($2a$, $2b$ or $2y$). */
  hash: string;
  groups: string[];
}

export interface TokenConfig {
  issuer: string;
  audience: string;
  /** The HS256 secret: `secret`, or the trimmed content of `secret_file`. */
  secret: string;
  ttlMs: number;
}

export interface LoginConfig {
  passwords: PasswordEntry[];
  providers: ProviderConfig[];
}

/** A validated config file. `login` and `token` are null when there is no login. */
export interface ProxyConfig {
  server: string;
  listen?: string;
  login: LoginConfig | null;
  redirectUrl?: string;
  roles: Record<string, string[]>;
  users: Record<string, string[]>;
  /** Forces the Secure cookie attribute; undefined = follow the request scheme. */
  secureCookie?: boolean;
  sessionTtlMs: number;
  token: TokenConfig | null;
  /** `password_throttle`, defaults filled in (login-throttle.ts). */
  passwordThrottle: PasswordThrottleConfig;
  /** `trusted_proxies`: peers whose X-Forwarded-For names the client (client-address.ts). */
  trustedProxies: string[];
}

export interface PasswordThrottleConfig {
  accountFailures: number;
  addressFailures: number;
  maxDelayMs: number;
}

export const DEFAULT_PASSWORD_THROTTLE: PasswordThrottleConfig = {
  accountFailures: 5,
  addressFailures: 20,
  maxDelayMs: 15 * 60_000,
};

/** Every problem found in a config file; `message` is one line naming the file and each field path. */
export class ConfigError extends Error {
  readonly issues: string[];
  constructor(source: string, issues: string[]) {
    super(`config ${source}: ${issues.join("; ")}`);
    this.name = "ConfigError";
    this.issues = issues;
  }
}

export function loadConfigFile(path: string): ProxyConfig {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new ConfigError(path, [`cannot read the file (${fileProblem(error)})`]);
  }
  // A relative secret_file is read next to the config file, wherever the proxy was started.
  return parseConfig(text, path, (file) => readFileSync(resolve(dirname(path), file), "utf8"));
}

/** Parses and validates YAML config text. `source` names it in errors; `readSecretFile` reads `token.secret_file`. */
export function parseConfig(
  text: string,
  source = "<config>",
  readSecretFile: (path: string) => string = (p) => readFileSync(p, "utf8"),
): ProxyConfig {
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (error) {
    throw new ConfigError(source, [`not valid YAML: ${(error as Error).message.split("\n")[0]}`]);
  }
  const v = new Validator();
  const root = v.object(doc, "(top level)");
  if (!root) throw new ConfigError(source, v.issues);
  v.keys(root, "", [
    "server",
    "listen",
    "login",
    "password_throttle",
    "redirect_url",
    "roles",
    "secure_cookie",
    "session_ttl",
    "token",
    "trusted_proxies",
    "users",
  ]);

  const server = v.url(root.server, "server", true);
  const listen = v.string(root.listen, "listen");
  if (listen !== undefined) {
    try {
      parseListenAddress(listen, "listen");
    } catch {
      v.issue("listen", `"${listen}" is not a listen address; expected HOST:PORT, :PORT or PORT (0-65535)`);
    }
  }
  const redirectUrl = v.url(root.redirect_url, "redirect_url", false);
  const secureCookie = v.boolean(root.secure_cookie, "secure_cookie");
  const sessionTtlMs = v.duration(root.session_ttl, "session_ttl") ?? DEFAULT_SESSION_TTL_MS;
  const passwordThrottle = readPasswordThrottle(v, root.password_throttle);
  const trustedProxies = v.stringArray(root.trusted_proxies, "trusted_proxies").filter((entry, i) => {
    try {
      parseTrustedProxy(entry);
      return true;
    } catch {
      v.issue(`trusted_proxies[${i}]`, `"${entry}" is not an IP address or CIDR range (e.g. 10.0.0.5 or 10.0.0.0/8)`);
      return false;
    }
  });
  const roles = v.permissionMap(root.roles, "roles");
  const users = v.permissionMap(root.users, "users");
  const loginSection = readLogin(v, root.login);
  const hasLogin = loginSection !== null && (loginSection.passwords.length > 0 || loginSection.providers.length > 0);
  const token = readToken(v, root.token, readSecretFile);
  if (hasLogin && root.token === undefined) {
    v.issue(
      "token",
      "required once login has passwords or providers (the secret, issuer and audience of the JWTs minted for the API)",
    );
  }
  if (v.issues.length > 0) throw new ConfigError(source, v.issues);
  const config: ProxyConfig = {
    server: server!,
    login: hasLogin ? loginSection : null,
    roles,
    users,
    sessionTtlMs,
    token: hasLogin ? token : null,
    passwordThrottle,
    trustedProxies,
  };
  if (listen !== undefined) config.listen = listen;
  if (redirectUrl !== undefined) config.redirectUrl = redirectUrl;
  if (secureCookie !== undefined) config.secureCookie = secureCookie;
  return config;
}

function readPasswordThrottle(v: Validator, value: unknown): PasswordThrottleConfig {
  const result = { ...DEFAULT_PASSWORD_THROTTLE };
  if (value === undefined || value === null) return result;
  const o = v.object(value, "password_throttle");
  if (!o) return result;
  v.keys(o, "password_throttle", ["account_failures", "address_failures", "max_delay"]);
  for (const [field, key] of [
    ["account_failures", "accountFailures"],
    ["address_failures", "addressFailures"],
  ] as const) {
    const n = o[field];
    if (n === undefined) continue;
    if (typeof n !== "number" || !Number.isInteger(n) || n < 1 || n > 1000)
      v.issue(`password_throttle.${field}`, `must be a whole number from 1 to 1000 (got ${JSON.stringify(n)})`);
    else result[key] = n;
  }
  const delay = v.duration(o.max_delay, "password_throttle.max_delay");
  if (delay !== undefined) result.maxDelayMs = delay;
  return result;
}

function readLogin(v: Validator, value: unknown): LoginConfig | null {
  if (value === undefined || value === null) return null;
  const login = v.object(value, "login");
  if (!login) return null;
  v.keys(login, "login", ["passwords", "providers"]);
  const passwords: PasswordEntry[] = [];
  const seenEmails = new Set<string>();
  v.array(login.passwords, "login.passwords").forEach((item, i) => {
    const path = `login.passwords[${i}]`;
    const o = v.object(item, path);
    if (!o) return;
    v.keys(o, path, ["email", "hash", "groups"]);
    const email = v.string(o.email, `${path}.email`, true);
    const hash = v.string(o.hash, `${path}.hash`, true);
    if (hash !== undefined && !/^\$2[aby]\$\d{2}\$[./A-Za-z0-9]{53}$/.test(hash)) {
      // Never echo the value: it may be a plaintext password.
      v.issue(
        `${path}.hash`,
        "must be a bcrypt hash ($2a$, $2b$ or $2y$ followed by the cost and 53 characters); plaintext passwords are refused (see docs/proxy.md for making a hash)",
      );
    }
    const groups = v.stringArray(o.groups, `${path}.groups`);
    if (email !== undefined) {
      if (seenEmails.has(email.toLowerCase())) v.issue(`${path}.email`, `"${email}" is listed twice`);
      seenEmails.add(email.toLowerCase());
    }
    if (email !== undefined && hash !== undefined) passwords.push({ email, hash, groups });
  });
  const providers: ProviderConfig[] = [];
  const seenIds = new Set<string>();
  v.array(login.providers, "login.providers").forEach((item, i) => {
    const path = `login.providers[${i}]`;
    const o = v.object(item, path);
    if (!o) return;
    v.keys(o, path, [
      "client_id",
      "client_secret",
      "discovery_url",
      "groups_claim",
      "id",
      "issuer",
      "jwks_url",
      "name",
      "scopes",
      "subject_claim",
      "token_url",
    ]);
    const id = v.string(o.id, `${path}.id`, true);
    if (id !== undefined) {
      if (!/^[A-Za-z0-9_-]+$/.test(id))
        v.issue(`${path}.id`, `"${id}" must be letters, digits, "-" or "_" (it is part of the URL /auth/login/<id>)`);
      else if (seenIds.has(id)) v.issue(`${path}.id`, `"${id}" is used by another provider; ids must be unique`);
      seenIds.add(id);
    }
    const provider = {
      id,
      name: v.string(o.name, `${path}.name`),
      issuer: v.url(o.issuer, `${path}.issuer`, true),
      discoveryUrl: v.url(o.discovery_url, `${path}.discovery_url`, false),
      clientId: v.string(o.client_id, `${path}.client_id`, true),
      clientSecret: v.string(o.client_secret, `${path}.client_secret`, true),
      scopes: v.scopes(o.scopes, `${path}.scopes`) ?? DEFAULT_SCOPES,
      subjectClaim: v.string(o.subject_claim, `${path}.subject_claim`) ?? "email",
      groupsClaim: v.string(o.groups_claim, `${path}.groups_claim`) ?? "groups",
      jwksUrl: v.url(o.jwks_url, `${path}.jwks_url`, false),
      tokenUrl: v.url(o.token_url, `${path}.token_url`, false),
    };
    if (provider.id && provider.issuer && provider.clientId && provider.clientSecret !== undefined) {
      const p: ProviderConfig = {
        ...provider,
        id: provider.id,
        name: provider.name ?? provider.id,
        issuer: provider.issuer,
        clientId: provider.clientId,
        clientSecret: provider.clientSecret,
      };
      for (const k of ["discoveryUrl", "jwksUrl", "tokenUrl"] as const) if (p[k] === undefined) delete p[k];
      providers.push(p);
    }
  });
  return { passwords, providers };
}

function readToken(v: Validator, value: unknown, readSecretFile: (path: string) => string): TokenConfig | null {
  if (value === undefined || value === null) return null;
  const token = v.object(value, "token");
  if (!token) return null;
  v.keys(token, "token", ["audience", "issuer", "secret", "secret_file", "ttl"]);
  const issuer = v.string(token.issuer, "token.issuer", false) ?? DEFAULT_TOKEN_ISSUER;
  const audience = v.string(token.audience, "token.audience", false) ?? DEFAULT_TOKEN_AUDIENCE;
  const ttlMs = v.duration(token.ttl, "token.ttl") ?? DEFAULT_TOKEN_TTL_MS;
  if (ttlMs < 2000) v.issue("token.ttl", "must be at least 2s (the API checks exp in whole seconds)");
  const inline = v.string(token.secret, "token.secret", false);
  const file = v.string(token.secret_file, "token.secret_file", false);
  let secret: string | undefined;
  let where = "token.secret";
  if (token.secret !== undefined && token.secret_file !== undefined) {
    v.issue("token", "give exactly one of secret and secret_file, not both");
  } else if (token.secret === undefined && token.secret_file === undefined) {
    v.issue(
      "token",
      "needs secret (at least 32 characters) or secret_file (a file holding it; the file baton-api reads with --jwt-secret-file)",
    );
  } else if (inline !== undefined) {
    secret = inline;
  } else if (file !== undefined) {
    where = `token.secret_file ${file}`;
    try {
      secret = readSecretFile(file).trim();
    } catch (error) {
      v.issue("token.secret_file", `cannot read ${file} (${fileProblem(error)})`);
    }
  }
  if (secret !== undefined && secret.length < MIN_TOKEN_SECRET_LENGTH) {
    // The length only: the secret itself never reaches a message.
    v.issue(where, `the secret is ${secret.length} characters; at least ${MIN_TOKEN_SECRET_LENGTH} are required`);
  }
  if (secret === undefined || secret.length < MIN_TOKEN_SECRET_LENGTH) return null;
  return { issuer, audience, secret, ttlMs };
}

function fileProblem(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  return code === "ENOENT"
    ? "no such file"
    : code === "EACCES"
      ? "permission denied"
      : code === "EISDIR"
        ? "it is a directory"
        : (code ?? "unreadable");
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  return typeof value === "object" ? "a mapping" : `a ${typeof value}`;
}

/** Collects issues as `<field path>: <problem>`; readers return undefined for an absent or bad value. */
class Validator {
  readonly issues: string[] = [];

  issue(path: string, problem: string): void {
    this.issues.push(`${path}: ${problem}`);
  }

  keys(o: Record<string, unknown>, path: string, allowed: string[]): void {
    for (const k of Object.keys(o)) {
      if (!allowed.includes(k))
        this.issue(path ? `${path}.${k}` : k, `unknown field; expected one of ${allowed.join(", ")}`);
    }
  }

  object(value: unknown, path: string): Record<string, unknown> | undefined {
    if (value !== null && typeof value === "object" && !Array.isArray(value)) return value as Record<string, unknown>;
    this.issue(path, `must be a mapping, got ${describe(value)}`);
    return undefined;
  }

  array(value: unknown, path: string): unknown[] {
    if (value === undefined || value === null) return [];
    if (Array.isArray(value)) return value;
    this.issue(path, `must be a list, got ${describe(value)}`);
    return [];
  }

  string(value: unknown, path: string, required = false): string | undefined {
    if (value === undefined || value === null) {
      if (required) this.issue(path, "is required (a string)");
      return undefined;
    }
    if (typeof value !== "string") {
      this.issue(path, `must be a string, got ${describe(value)}`);
      return undefined;
    }
    if (value.trim() === "") {
      this.issue(path, "must not be empty");
      return undefined;
    }
    return value;
  }

  url(value: unknown, path: string, required: boolean): string | undefined {
    const s = this.string(value, path, required);
    if (s === undefined) return undefined;
    let url: URL;
    try {
      url = new URL(s);
    } catch {
      this.issue(path, `"${s}" is not a URL; expected http://… or https://…`);
      return undefined;
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") {
      this.issue(path, `"${s}" must be an http:// or https:// URL`);
      return undefined;
    }
    return s;
  }

  boolean(value: unknown, path: string): boolean | undefined {
    if (value === undefined || value === null) return undefined;
    if (typeof value === "boolean") return value;
    this.issue(path, `must be true or false, got ${describe(value)}`);
    return undefined;
  }

  duration(value: unknown, path: string): number | undefined {
    if (value === undefined || value === null) return undefined;
    const ms = typeof value === "string" ? parseDuration(value) : null;
    if (ms === null || ms <= 0) {
      this.issue(
        path,
        `${typeof value === "string" ? `"${value}"` : describe(value)} is not a duration; expected e.g. 12h, 90m, 1h30m, 30s`,
      );
      return undefined;
    }
    return ms;
  }

  stringArray(value: unknown, path: string): string[] {
    return this.array(value, path).flatMap((item, i) => {
      const s = this.string(item, `${path}[${i}]`, true);
      return s === undefined ? [] : [s];
    });
  }

  /** A list of strings, or one space-separated string. */
  scopes(value: unknown, path: string): string[] | undefined {
    if (value === undefined || value === null) return undefined;
    const scopes = typeof value === "string" ? value.split(/\s+/).filter(Boolean) : this.stringArray(value, path);
    if (!scopes.includes("openid"))
      this.issue(path, "must include openid (the id_token carries the subject and groups)");
    return scopes;
  }

  permissionMap(value: unknown, path: string): Record<string, string[]> {
    const out: Record<string, string[]> = {};
    if (value === undefined || value === null) return out;
    const o = this.object(value, path);
    if (!o) return out;
    for (const [key, list] of Object.entries(o)) {
      const at = `${path}.${key}`;
      if (!Array.isArray(list)) {
        this.issue(at, `must be a list of permissions (${PERMISSIONS.join(", ")}), got ${describe(list)}`);
        continue;
      }
      out[key] = list.flatMap((p, i) => {
        if (typeof p === "string" && isPermission(p)) return [p];
        this.issue(
          `${at}[${i}]`,
          `${typeof p === "string" ? `"${p}"` : describe(p)} is not a permission; expected one of ${PERMISSIONS.join(", ")}`,
        );
        return [];
      });
    }
    return out;
  }
}
