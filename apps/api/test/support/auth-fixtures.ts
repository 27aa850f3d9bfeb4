// Shared by the server suites that need credentials: the built binary run as a command
// (bootstrap tokens), and JWTs as the sign-in proxy mints them. The database those commands and
// servers share is @baton/testkit sharedDatabase().
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { API_MAIN, type SharedDatabase } from "@baton/testkit";
import { SignJWT } from "jose";

export const JWT_ISSUER = "baton-proxy-test";
export const JWT_AUDIENCE = "baton-test";
export const JWT_SECRET = "test-secret-shared-with-the-proxy-0123456789";

/** A secret this service issues has exactly this shape; nothing in a log may match it. */
export const TOKEN_SECRET_PATTERN = /svc_sk_[A-Za-z0-9_-]{43}/;
/** Any compact JWS (header and payload are base64url JSON objects, so they start with eyJ). */
export const JWT_PATTERN = /eyJ[A-Za-z0-9_-]*\.eyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*/;

export interface ApiRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the built `baton-api` with exactly these arguments (DATABASE_URL removed from its environment). */
export function runApi(args: string[], env: Record<string, string> = {}): Promise<ApiRun> {
  const childEnv: Record<string, string> = { ...(process.env as Record<string, string>), ...env };
  if (!("DATABASE_URL" in env)) delete childEnv.DATABASE_URL;
  return new Promise((resolve) => {
    execFile(process.execPath, [API_MAIN, ...args], { env: childEnv, timeout: 120_000 }, (error, stdout, stderr) => {
      const code = error ? (typeof (error as any).code === "number" ? (error as any).code : null) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

/** `tokens create` through the binary; returns the secret it printed. */
export async function bootstrapToken(database: SharedDatabase, label: string, perms: string): Promise<string> {
  const run = await runApi(["tokens", "create", "--label", label, "--perms", perms, ...database.flags]);
  if (run.code !== 0) throw new Error(`tokens create failed (${run.code}):\n${run.stderr}`);
  return run.stdout.trim();
}

/** A temp file holding JWT_SECRET (with a trailing newline, which is trimmed). */
export function jwtSecretFile(): { path: string; dispose(): void } {
  const dir = mkdtempSync(join(tmpdir(), "baton-jwt-"));
  const path = join(dir, "secret");
  writeFileSync(path, `${JWT_SECRET}\n`);
  return { path, dispose: () => rmSync(dir, { recursive: true, force: true }) };
}

export const jwtFlags = (secretFile: string) => [
  "--jwt-secret-file",
  secretFile,
  "--jwt-issuer",
  JWT_ISSUER,
  "--jwt-audience",
  JWT_AUDIENCE,
];

export interface MintOptions {
  sub?: string;
  /** undefined = leave the claim out. */
  perms?: unknown;
  issuer?: string;
  audience?: string;
  secret?: string;
  /** Seconds from now; negative = already expired. */
  expiresIn?: number;
  /** Further claims (a `scopes` claim, docs/auth.md "Scopes"). */
  claims?: Record<string, unknown>;
}

/** A JWT as the sign-in proxy mints it (HS256, sub, perms, iss, aud, exp). */
export function mintJwt(options: MintOptions = {}): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const claims: Record<string, unknown> = {};
  if ("perms" in options) {
    if (options.perms !== undefined) claims.perms = options.perms;
  } else claims.perms = [];
  Object.assign(claims, options.claims ?? {});
  return new SignJWT(claims)
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setSubject(options.sub ?? "ada@example.com")
    .setIssuer(options.issuer ?? JWT_ISSUER)
    .setAudience(options.audience ?? JWT_AUDIENCE)
    .setIssuedAt(now)
    .setExpirationTime(now + (options.expiresIn ?? 60))
    .sign(new TextEncoder().encode(options.secret ?? JWT_SECRET));
}

/** An unsigned token (`alg: none`) carrying otherwise valid claims. */
export function unsignedJwt(perms: string[]): string {
  const now = Math.floor(Date.now() / 1000);
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString("base64url");
  return `${part({ alg: "none", typ: "JWT" })}.${part({ sub: "mallory", perms, iss: JWT_ISSUER, aud: JWT_AUDIENCE, iat: now, exp: now + 60 })}.`;
}

export const bearer = (credential: string) => ({ authorization: `Bearer ${credential}` });
