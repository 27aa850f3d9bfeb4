import http from "node:http";
import https from "node:https";
import { TaskFailure } from "../advance/task-failure.js";
import { describe, type FetchResponse } from "../advance/tasks/fetch.js";
import { longTimeout } from "./long-timeout.js";

export interface HttpCall {
  method: string;
  url: URL;
  headers: Record<string, string>;
  body?: string | Buffer;
  timeoutMs: number;
  maxResponseBytes: number;
  /** Aborts the call (the engine lost the lease or is stopping); fails with `pre.error`/`http.disconnected`. */
  abort?: AbortSignal;
  /**
   * Connect to exactly this address (checked by host-policy.ts), never to what the host name
   * resolves to now: a DNS answer that changes between the check and the connect (rebinding)
   * cannot switch the target. `Host` and TLS SNI still carry the URL's host name.
   */
  address?: { address: string; family: 4 | 6 };
}

export type HttpResponse = FetchResponse;

// Enough idle sockets to keep a full round of concurrent calls to one upstream warm.
const agentOptions = { keepAlive: true, keepAliveMsecs: 1_000, maxSockets: 512, maxFreeSockets: 512, timeout: 4_000 };
const httpAgent = new http.Agent(agentOptions);
const httpsAgent = new https.Agent(agentOptions);

// Errors raised while resolving or connecting: the request provably never left.
const PRE_CONNECT_CODES = new Set([
  "ENOTFOUND",
  "EAI_AGAIN",
  "EAI_FAIL",
  "EAI_NONAME",
  "ECONNREFUSED",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EADDRNOTAVAIL",
  "ERR_TLS_CERT_ALTNAME_INVALID",
  "CERT_HAS_EXPIRED",
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "SELF_SIGNED_CERT_IN_CHAIN",
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "ERR_INVALID_URL",
  "ERR_INVALID_HTTP_TOKEN",
  "ERR_INVALID_CHAR",
  "ERR_UNESCAPED_CHARACTERS",
]);

/**
 * One HTTP attempt, classified by docs/language.md#error-codes: `pre.error` / `pre.timeout` while the request
 * provably never left (resolve, connect, TLS), `http.timeout` / `http.disconnected` once it
 * may have, `output.too_large` above the response cap. Resolves with any status.
 */
export function httpCall(call: HttpCall): Promise<HttpResponse> {
  return new Promise((resolve, reject) => {
    const isHttps = call.url.protocol === "https:";
    let sent = false;
    let settled = false;
    const fail = (error: TaskFailure) => {
      if (settled) return;
      settled = true;
      timer.cancel();
      call.abort?.removeEventListener("abort", onAbort);
      request.destroy();
      reject(error);
    };
    let request: http.ClientRequest;
    try {
      request = (isHttps ? https : http).request(call.url, {
        method: call.method,
        headers: call.headers,
        agent: isHttps ? httpsAgent : httpAgent,
        ...(call.address ? { lookup: pinnedLookup(call.address) } : {}),
      });
    } catch (error) {
      reject(
        new TaskFailure("pre.error", `request to ${describe(call.url)} could not be made: ${(error as Error).message}`),
      );
      return;
    }
    const timer = longTimeout(() => {
      fail(
        sent
          ? new TaskFailure(
              "http.timeout",
              `no complete response from ${describe(call.url)} within ${call.timeoutMs} ms`,
            )
          : new TaskFailure("pre.timeout", `could not connect to ${describe(call.url)} within ${call.timeoutMs} ms`),
      );
    }, call.timeoutMs);
    const onAbort = () =>
      fail(
        new TaskFailure(
          sent ? "http.disconnected" : "pre.error",
          `request to ${describe(call.url)} was abandoned by the engine`,
        ),
      );

    request.on("socket", (socket) => {
      // A reused keep-alive socket is already connected: the request leaves as soon as it is written.
      if (!socket.connecting) sent = true;
      else socket.once(isHttps ? "secureConnect" : "connect", () => (sent = true));
    });
    request.on("error", (error: NodeJS.ErrnoException) => {
      const code = error.code ?? "";
      if (!sent || PRE_CONNECT_CODES.has(code)) {
        fail(new TaskFailure("pre.error", `request to ${describe(call.url)} never left: ${error.message}`));
      } else {
        fail(new TaskFailure("http.disconnected", `connection to ${describe(call.url)} broke: ${error.message}`));
      }
    });
    request.on("response", (response) => {
      const chunks: Buffer[] = [];
      let size = 0;
      response.on("data", (chunk: Buffer) => {
        size += chunk.length;
        if (size > call.maxResponseBytes) {
          fail(
            new TaskFailure(
              "output.too_large",
              `response from ${describe(call.url)} exceeds ${call.maxResponseBytes} bytes (--limit-fetch-response-bytes)`,
            ),
          );
          return;
        }
        chunks.push(chunk);
      });
      response.on("error", (error) => {
        fail(new TaskFailure("http.disconnected", `response from ${describe(call.url)} broke off: ${error.message}`));
      });
      response.on("aborted", () => {
        fail(new TaskFailure("http.disconnected", `response from ${describe(call.url)} broke off`));
      });
      response.on("end", () => {
        if (settled) return;
        if (!response.complete) {
          fail(new TaskFailure("http.disconnected", `response from ${describe(call.url)} broke off`));
          return;
        }
        settled = true;
        timer.cancel();
        call.abort?.removeEventListener("abort", onAbort);
        const headers: Record<string, string> = {};
        for (const [name, value] of Object.entries(response.headers)) {
          if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(", ") : value;
        }
        resolve({ status: response.statusCode ?? 0, headers, body: Buffer.concat(chunks) });
      });
    });
    // Only now that every listener is in place: destroying a request without an "error" listener crashes the process.
    if (call.abort?.aborted) {
      onAbort();
      return;
    }
    call.abort?.addEventListener("abort", onAbort, { once: true });
    request.end(call.body);
  });
}

/** A `lookup` for net.connect that answers the one checked address, in both of its calling forms. */
function pinnedLookup(pinned: { address: string; family: 4 | 6 }) {
  return (
    _host: string,
    options: { all?: boolean },
    callback: (error: Error | null, address: string | { address: string; family: number }[], family?: number) => void,
  ) => {
    if (options?.all) callback(null, [{ address: pinned.address, family: pinned.family }]);
    else callback(null, pinned.address, pinned.family);
  };
}
