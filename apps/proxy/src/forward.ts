import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import { Readable } from "node:stream";
import type { ReadableStream as NodeReadableStream } from "node:stream/web";

/** RFC 9110 §7.6.1 connection-specific fields, plus the non-standard ones proxies drop too. */
const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "proxy-authenticate",
  "proxy-authorization",
  "proxy-connection",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
]);

/** What goes in the upstream Authorization header: the caller's own (no-login mode), a minted JWT, or none. */
export type UpstreamAuthorization = { kind: "pass-through" } | { kind: "bearer"; token: string } | { kind: "none" };

export class UpstreamUnreachable extends Error {
  constructor(
    readonly server: string,
    readonly reason: string,
  ) {
    super(`the API at ${server} cannot be reached (${reason})`);
    this.name = "UpstreamUnreachable";
  }
}

/**
 * The request's headers as sent upstream: hop-by-hop fields (and those named in Connection),
 * Host and Cookie dropped, Authorization replaced per `auth`. Cookies are the proxy's own
 * session and never reach the API.
 */
export function upstreamHeaders(incoming: Headers, auth: UpstreamAuthorization, host: string): Record<string, string> {
  const named = new Set(
    (incoming.get("connection") ?? "")
      .split(",")
      .map((s) => s.trim().toLowerCase())
      .filter(Boolean),
  );
  const out: Record<string, string> = {};
  incoming.forEach((value, name) => {
    if (HOP_BY_HOP.has(name) || named.has(name) || name === "host" || name === "cookie") return;
    if (name === "authorization" && auth.kind !== "pass-through") return;
    out[name] = value;
  });
  if (auth.kind === "bearer") out.authorization = `Bearer ${auth.token}`;
  out.host = host;
  return out;
}

/** The upstream response's headers for the browser: hop-by-hop fields and Set-Cookie dropped. */
export function downstreamHeaders(res: IncomingMessage): Headers {
  const named = new Set(
    String(res.headers.connection ?? "")
      .split(",")
      .map((s) => s.trim().toLowerCase())
      .filter(Boolean),
  );
  const out = new Headers();
  for (const [name, value] of Object.entries(res.headers)) {
    if (value === undefined || HOP_BY_HOP.has(name) || named.has(name) || name === "set-cookie") continue;
    for (const v of Array.isArray(value) ? value : [value]) out.append(name, v);
  }
  return out;
}

/**
 * Sends `req` to `server` (same method, path, query; body streamed both ways, nothing decoded)
 * and returns the upstream's answer. Throws UpstreamUnreachable when no answer comes.
 */
export function forward(req: Request, server: URL, auth: UpstreamAuthorization): Promise<Response> {
  const url = new URL(req.url);
  const basePath = server.pathname.replace(/\/+$/, "");
  const send = server.protocol === "https:" ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const outgoing = send(
      {
        protocol: server.protocol,
        hostname: server.hostname.replace(/^\[|\]$/g, ""),
        port: server.port || undefined,
        method: req.method,
        path: `${basePath}${url.pathname}${url.search}`,
        headers: upstreamHeaders(req.headers, auth, server.host),
      },
      (res) => {
        const status = res.statusCode ?? 502;
        const bodyless = req.method === "HEAD" || status === 204 || status === 304;
        if (bodyless) res.resume();
        const body = bodyless ? null : (Readable.toWeb(res) as unknown as ReadableStream<Uint8Array>);
        resolve(new Response(body, { status, statusText: res.statusMessage, headers: downstreamHeaders(res) }));
      },
    );
    outgoing.on("error", (error: NodeJS.ErrnoException) =>
      reject(new UpstreamUnreachable(server.origin, error.code ?? error.message)),
    );
    req.signal?.addEventListener("abort", () => outgoing.destroy(), { once: true });
    if (req.body) Readable.fromWeb(req.body as unknown as NodeReadableStream<Uint8Array>).pipe(outgoing);
    else outgoing.end();
  });
}
