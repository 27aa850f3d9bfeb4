import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface UpstreamRequest {
  method: string;
  path: string;
  headers: IncomingMessage["headers"];
  body: string;
}

export type UpstreamHandler = (request: UpstreamRequest, res: ServerResponse) => void | Promise<void>;

export interface Upstream {
  url: string;
  requests: UpstreamRequest[];
  /** Replace the handler (e.g. fail twice, then succeed). */
  handle(handler: UpstreamHandler): void;
  close(): Promise<void>;
}

/** Answers `status` with `body` as JSON. */
export function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

/**
 * A programmable HTTP upstream on loopback: what a `fetch` task calls in tests. It is the
 * only mocked part of the system (it stands for a service outside the product).
 */
export async function startUpstream(handler: UpstreamHandler = (_r, res) => json(res, 200, {})): Promise<Upstream> {
  let current = handler;
  const requests: UpstreamRequest[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const r: UpstreamRequest = {
        method: req.method ?? "GET",
        path: req.url ?? "/",
        headers: req.headers,
        body: Buffer.concat(chunks).toString("utf8"),
      };
      requests.push(r);
      Promise.resolve(current(r, res)).catch((error) => {
        res.writeHead(500);
        res.end(String(error));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    handle: (h) => {
      current = h;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
