import { type Validator, fileProblem } from "./config-validator.js";

export const MIN_TOKEN_SECRET_LENGTH = 32;
export const DEFAULT_TOKEN_TTL_MS = 60_000;
/** The claim carrying a person's scopes: baton-api's `--jwt-scopes-claim` default. */
export const DEFAULT_SCOPES_CLAIM = "scopes";
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
  /** `token.scopes_claim`: must equal baton-api's `--jwt-scopes-claim` (docs/auth.md "Scopes"). */
  scopesClaim: string;
}

export interface LoginConfig {
  passwords: PasswordEntry[];
  providers: ProviderConfig[];
}

/** `login`: password entries and OpenID Connect providers, each checked with its path. */
export function readLogin(v: Validator, value: unknown): LoginConfig | null {
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

/** `token`: the secret (inline or from a file), issuer, audience and lifetime of the minted JWTs. */
export function readToken(v: Validator, value: unknown, readSecretFile: (path: string) => string): TokenConfig | null {
  if (value === undefined || value === null) return null;
  const token = v.object(value, "token");
  if (!token) return null;
  v.keys(token, "token", ["audience", "issuer", "scopes_claim", "secret", "secret_file", "ttl"]);
  const scopesClaim = v.string(token.scopes_claim, "token.scopes_claim", false) ?? DEFAULT_SCOPES_CLAIM;
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
  return { issuer, audience, secret, ttlMs, scopesClaim };
}
