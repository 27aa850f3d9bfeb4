import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { parse as parseYaml } from "yaml";
import { parseTrustedProxy } from "./client-address.js";
import { type LoginConfig, readLogin, readToken, type TokenConfig } from "./config-login.js";
import { fileProblem, Validator } from "./config-validator.js";
import { parseListenAddress } from "./listen-address.js";

export {
  DEFAULT_SCOPES,
  DEFAULT_TOKEN_AUDIENCE,
  DEFAULT_TOKEN_ISSUER,
  DEFAULT_TOKEN_TTL_MS,
  type LoginConfig,
  MIN_TOKEN_SECRET_LENGTH,
  type PasswordEntry,
  type ProviderConfig,
  type TokenConfig,
} from "./config-login.js";

export const DEFAULT_SESSION_TTL_MS = 12 * 3_600_000;

/** A validated config file. `login` and `token` are null when there is no login. */
export interface ProxyConfig {
  server: string;
  listen?: string;
  login: LoginConfig | null;
  redirectUrl?: string;
  roles: Record<string, string[]>;
  users: Record<string, string[]>;
  /** Group → scope patterns, `*` for everyone signed in (docs/auth.md "Scopes"). */
  roleScopes: Record<string, string[]>;
  /** Subject → scope patterns, unioned with roleScopes. */
  userScopes: Record<string, string[]>;
  /** Forces the Secure cookie attribute; undefined = follow the request scheme. */
  secureCookie?: boolean;
  sessionTtlMs: number;
  token: TokenConfig | null;
  /** `password_throttle`, defaults filled in (login-throttle.ts). */
  passwordThrottle: PasswordThrottleConfig;
  /** `trusted_proxies`: peers whose X-Forwarded-For names the client (client-address.ts). */
  trustedProxies: string[];
  /** `trace_url`: the tracing tool's page of a trace, `{trace_id}` replaced (docs/tracing.md "The UI's trace link"). */
  traceUrl?: string;
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
    "role_scopes",
    "roles",
    "secure_cookie",
    "session_ttl",
    "token",
    "trace_url",
    "trusted_proxies",
    "user_scopes",
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
  const traceUrl = v.url(root.trace_url, "trace_url", false);
  if (traceUrl !== undefined && !traceUrl.includes("{trace_id}"))
    v.issue(
      "trace_url",
      `"${traceUrl}" does not contain {trace_id}; expected e.g. https://jaeger.example/trace/{trace_id}`,
    );
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
  const roleScopes = v.scopeMap(root.role_scopes, "role_scopes");
  const userScopes = v.scopeMap(root.user_scopes, "user_scopes");
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
    roleScopes,
    userScopes,
    sessionTtlMs,
    token: hasLogin ? token : null,
    passwordThrottle,
    trustedProxies,
  };
  if (listen !== undefined) config.listen = listen;
  if (redirectUrl !== undefined) config.redirectUrl = redirectUrl;
  if (traceUrl !== undefined) config.traceUrl = traceUrl;
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
