// Requests node's HTTP parser refuses before the app sees them get a JSON body like every other
// refusal (docs/limits.md "Requests"); node's own answer had an empty body. Headers (the URL
// included) past node's 16 KiB are 431, a request that is not HTTP/1.1 400, one that took too
// long to arrive 408; all `invalid`.
import type { Server } from "node:http";
import type { Duplex } from "node:stream";
import type { ServerType } from "@hono/node-server";

const ANSWERS: Record<string, [number, string, string]> = {
  HPE_HEADER_OVERFLOW: [
    431,
    "Request Header Fields Too Large",
    "the request's headers (the URL included) are larger than 16384 bytes, the most the server reads; send a shorter URL or shorter headers",
  ],
  ERR_HTTP_REQUEST_TIMEOUT: [
    408,
    "Request Timeout",
    "the request did not arrive in time (--header-timeout-ms for its head, --request-timeout-ms for all of it; docs/limits.md)",
  ],
};

export function answerClientErrors(server: ServerType): void {
  // serve() without createServer options (server.ts) makes a plain node http Server.
  (server as Server).on("clientError", (error: Error & { code?: string }, socket: Duplex) => {
    // Once a response started, or with the connection gone, there is no one to answer.
    if (error.code === "ECONNRESET" || !socket.writable || (socket as { _httpMessage?: unknown })._httpMessage) {
      socket.destroy();
      return;
    }
    const [status, reason, message] = ANSWERS[error.code ?? ""] ?? [
      400,
      "Bad Request",
      "the request is not a well-formed HTTP/1.1 request",
    ];
    const body = JSON.stringify({ code: "invalid", error: message });
    socket.end(
      `HTTP/1.1 ${status} ${reason}\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
    );
  });
}
