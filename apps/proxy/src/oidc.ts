import * as client from "openid-client";
import type { ProviderConfig } from "./config.js";
import type { Logger } from "@baton/log";

/** What the proxy keeps between the redirect to the provider and the callback (in a sealed cookie). */
export interface OidcTransaction {
  provider: string;
  state: string;
  nonce: string;
  verifier: string;
  /** Where to send the browser after sign-in: a path on this proxy. */
  returnTo: string;
}

export interface OidcIdentity {
  subject: string;
  groups: string[];
}

/** A sign-in that failed for a reason the person can be told (the log gets the detail). */
export class SignInError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SignInError";
  }
}

export interface Oidc {
  begin(
    provider: ProviderConfig,
    redirectUri: string,
    returnTo: string,
  ): Promise<{ url: URL; transaction: OidcTransaction }>;
  /** `callbackUrl` is redirect_url with the callback's query: openid-client sends it without the query as redirect_uri. */
  finish(provider: ProviderConfig, callbackUrl: URL, transaction: OidcTransaction): Promise<OidcIdentity>;
}

/**
 * OpenID Connect authorization code flow with PKCE (S256), state and nonce, via openid-client;
 * the id_token's signature, issuer, audience, expiry and nonce are all checked.
 * Discovery runs on first use and is cached per provider (a failure is retried next time), so
 * the proxy starts while a provider is down.
 */
export function createOidc(log: Logger): Oidc {
  const configs = new Map<string, Promise<client.Configuration>>();
  const configFor = (p: ProviderConfig) => {
    let c = configs.get(p.id);
    if (!c) {
      c = discover(p, log);
      configs.set(p.id, c);
      c.catch(() => configs.delete(p.id));
    }
    return c;
  };
  return {
    async begin(provider, redirectUri, returnTo) {
      const config = await configFor(provider);
      const verifier = client.randomPKCECodeVerifier();
      const transaction: OidcTransaction = {
        provider: provider.id,
        state: client.randomState(),
        nonce: client.randomNonce(),
        verifier,
        returnTo,
      };
      const url = client.buildAuthorizationUrl(config, {
        redirect_uri: redirectUri,
        scope: provider.scopes.join(" "),
        response_type: "code",
        code_challenge: await client.calculatePKCECodeChallenge(verifier),
        code_challenge_method: "S256",
        state: transaction.state,
        nonce: transaction.nonce,
      });
      return { url, transaction };
    },
    async finish(provider, callbackUrl, transaction) {
      const config = await configFor(provider);
      let tokens: Awaited<ReturnType<typeof client.authorizationCodeGrant>>;
      try {
        tokens = await client.authorizationCodeGrant(config, callbackUrl, {
          pkceCodeVerifier: transaction.verifier,
          expectedState: transaction.state,
          expectedNonce: transaction.nonce,
          idTokenExpected: true,
        });
      } catch (error) {
        log.warn("sign-in refused", { provider: provider.id, reason: describeError(error) });
        throw new SignInError(`sign-in with ${provider.name} failed: ${describeError(error)}`);
      }
      const claims = tokens.claims() ?? {};
      return identityFromClaims(provider, claims);
    },
  };
}

/** Subject and groups from id_token claims, per `subject_claim` and `groups_claim`. */
export function identityFromClaims(provider: ProviderConfig, claims: Record<string, unknown>): OidcIdentity {
  const subject = claims[provider.subjectClaim];
  if (typeof subject !== "string" || subject.trim() === "") {
    throw new SignInError(
      `sign-in with ${provider.name} failed: the id_token has no ${provider.subjectClaim} claim (the provider's subject_claim)`,
    );
  }
  if (provider.subjectClaim === "email" && claims.email_verified === false) {
    throw new SignInError(`sign-in with ${provider.name} failed: the provider says the email address is not verified`);
  }
  const raw = claims[provider.groupsClaim];
  const groups =
    typeof raw === "string" ? [raw] : Array.isArray(raw) ? raw.filter((g): g is string => typeof g === "string") : [];
  return { subject, groups };
}

async function discover(p: ProviderConfig, log: Logger): Promise<client.Configuration> {
  const insecure = [p.issuer, p.discoveryUrl, p.jwksUrl, p.tokenUrl].some((u) => u?.startsWith("http:"));
  // Signatures are checked against the JWKS (jwks_url or discovered) even though the id_token
  // comes straight from the token endpoint: with plain http or a wrong token_url, TLS vouches for nothing.
  const execute = [client.enableNonRepudiationChecks, ...(insecure ? [client.allowInsecureRequests] : [])];
  if (insecure)
    log.warn("OpenID provider reached over plain http; use https outside local testing", { provider: p.id });
  let config: client.Configuration;
  try {
    config = await client.discovery(new URL(p.discoveryUrl ?? p.issuer), p.clientId, p.clientSecret, undefined, {
      execute,
      timeout: 10,
    });
  } catch (error) {
    log.error("OpenID discovery failed", {
      provider: p.id,
      url: p.discoveryUrl ?? p.issuer,
      reason: describeError(error),
    });
    throw new SignInError(
      `sign-in with ${p.name} is unavailable: its OpenID discovery failed (${describeError(error)})`,
    );
  }
  const { supportsPKCE: _, ...metadata } = config.serverMetadata();
  // A discovery_url skips openid-client's own issuer check; the id_token's iss is checked against this.
  if (metadata.issuer !== p.issuer) {
    log.error("OpenID discovery names another issuer", { provider: p.id, expected: p.issuer, got: metadata.issuer });
    throw new SignInError(
      `sign-in with ${p.name} is unavailable: discovery names issuer ${metadata.issuer}, the config says ${p.issuer}`,
    );
  }
  if (!p.jwksUrl && !p.tokenUrl) return config;
  const patched = new client.Configuration(
    {
      ...metadata,
      ...(p.jwksUrl ? { jwks_uri: p.jwksUrl } : {}),
      ...(p.tokenUrl ? { token_endpoint: p.tokenUrl } : {}),
    },
    p.clientId,
    p.clientSecret,
  );
  for (const extension of execute) extension(patched);
  return patched;
}

function describeError(error: unknown): string {
  const e = error as { message?: string; error?: string; error_description?: string; code?: string };
  if (e.error) return e.error_description ? `${e.error}: ${e.error_description}` : e.error;
  return e.message ?? String(error);
}
