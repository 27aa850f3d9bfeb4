import { createHash, randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair, type JWK, SignJWT } from "jose";

/** The person the provider signs in on the next /authorize (tests set it). */
export interface FakeUser {
  sub: string;
  claims: Record<string, unknown>;
}

interface PendingCode {
  clientId: string;
  redirectUri: string;
  nonce: string | undefined;
  codeChallenge: string | undefined;
  user: FakeUser;
}

export interface FakeOpenIdProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  user: FakeUser;
  /** What /authorize was called with, last first. */
  authorizeRequests: URLSearchParams[];
  /** Every /token exchange and whether PKCE verified (code_verifier hashed to the stored challenge). */
  tokenExchanges: { pkceVerified: boolean; ok: boolean; error?: string }[];
  /** Test hooks: sign the next id_token with another key, or with another nonce. */
  tamper: { wrongKey?: boolean; nonce?: string };
  close(): Promise<void>;
}

/**
 * A minimal OpenID provider on loopback for the code flow: discovery, JWKS, an /authorize that
 * signs `user` in at once and redirects back, and a /token endpoint that checks the client
 * secret, redirect_uri and PKCE (S256) and returns an ES256 id_token carrying the nonce.
 * It stands for a service outside the product, like the testkit's upstream.
 */
export async function startFakeOpenIdProvider(): Promise<FakeOpenIdProvider> {
  const { privateKey, publicKey } = await generateKeyPair("ES256");
  const other = await generateKeyPair("ES256");
  const jwk: JWK = { ...(await exportJWK(publicKey)), kid: "k1", alg: "ES256", use: "sig" };
  const otherJwk: JWK = { ...(await exportJWK(other.publicKey)), kid: "k1", alg: "ES256", use: "sig" };
  const codes = new Map<string, PendingCode>();
  let issuer = "";
  const op: FakeOpenIdProvider = {
    issuer: "",
    clientId: "baton-proxy",
    clientSecret: "fake-client-secret",
    user: { sub: "u-1", claims: {} },
    authorizeRequests: [],
    tokenExchanges: [],
    tamper: {},
    close: async () => {},
  };

  const handle = async (req: IncomingMessage, res: ServerResponse, body: string) => {
    const url = new URL(req.url ?? "/", issuer);
    const send = (status: number, value: unknown) => {
      res.writeHead(status, { "content-type": "application/json", "cache-control": "no-store" });
      res.end(JSON.stringify(value));
    };
    if (url.pathname === "/.well-known/openid-configuration") {
      return send(200, {
        issuer,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        jwks_uri: `${issuer}/jwks`,
        response_types_supported: ["code"],
        subject_types_supported: ["public"],
        id_token_signing_alg_values_supported: ["ES256"],
        code_challenge_methods_supported: ["S256"],
        token_endpoint_auth_methods_supported: ["client_secret_post", "client_secret_basic"],
        scopes_supported: ["openid", "email", "profile", "groups"],
      });
    }
    if (url.pathname === "/jwks") return send(200, { keys: [jwk] });
    // The key `tamper.wrongKey` signs with, for a provider configured with jwks_url pointing here.
    if (url.pathname === "/jwks-other") return send(200, { keys: [otherJwk] });
    if (url.pathname === "/authorize") {
      const q = url.searchParams;
      op.authorizeRequests.unshift(q);
      const code = randomBytes(12).toString("hex");
      codes.set(code, {
        clientId: q.get("client_id") ?? "",
        redirectUri: q.get("redirect_uri") ?? "",
        nonce: q.get("nonce") ?? undefined,
        codeChallenge: q.get("code_challenge_method") === "S256" ? (q.get("code_challenge") ?? undefined) : undefined,
        user: op.user,
      });
      const back = new URL(q.get("redirect_uri") ?? "");
      back.searchParams.set("code", code);
      if (q.get("state") !== null) back.searchParams.set("state", q.get("state")!);
      res.writeHead(302, { location: back.href });
      return res.end();
    }
    if (url.pathname === "/token" && req.method === "POST") {
      const form = new URLSearchParams(body);
      let clientId = form.get("client_id");
      let clientSecret = form.get("client_secret");
      const basic = /^Basic (.+)$/.exec(req.headers.authorization ?? "");
      if (basic)
        [clientId, clientSecret] = Buffer.from(basic[1]!, "base64").toString().split(":").map(decodeURIComponent) as [
          string,
          string,
        ];
      const pending = codes.get(form.get("code") ?? "");
      codes.delete(form.get("code") ?? "");
      const verifier = form.get("code_verifier");
      const pkceVerified =
        !!pending?.codeChallenge &&
        !!verifier &&
        createHash("sha256").update(verifier).digest("base64url") === pending.codeChallenge;
      const refuse = (error: string) => {
        op.tokenExchanges.push({ pkceVerified, ok: false, error });
        send(400, { error, error_description: `fake provider refused: ${error}` });
      };
      if (clientId !== op.clientId || clientSecret !== op.clientSecret) return refuse("invalid_client");
      if (!pending || form.get("grant_type") !== "authorization_code") return refuse("invalid_grant");
      if (form.get("redirect_uri") !== pending.redirectUri) return refuse("invalid_grant");
      if (!pkceVerified) return refuse("invalid_grant");
      op.tokenExchanges.push({ pkceVerified, ok: true });
      const idToken = await new SignJWT({ ...pending.user.claims, nonce: op.tamper.nonce ?? pending.nonce })
        .setProtectedHeader({ alg: "ES256", kid: "k1" })
        .setIssuer(issuer)
        .setAudience(pending.clientId)
        .setSubject(pending.user.sub)
        .setIssuedAt()
        .setExpirationTime("5m")
        .sign(op.tamper.wrongKey ? other.privateKey : privateKey);
      return send(200, {
        access_token: randomBytes(16).toString("hex"),
        token_type: "Bearer",
        expires_in: 300,
        id_token: idToken,
      });
    }
    send(404, { error: "not_found" });
  };

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      handle(req, res, Buffer.concat(chunks).toString("utf8")).catch((error) => {
        res.writeHead(500);
        res.end(String(error));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  op.issuer = issuer;
  op.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return op;
}
