import type { IncomingMessage, Server, ServerOptions, ServerResponse } from "node:http";
import type { Socket } from "node:net";

/** How long a connection may take and how many may be open (docs/limits.md "Connections"). */
export interface ConnectionLimits {
  /** Ms a connection has to deliver a complete request head, from its first byte or from being opened. */
  headerTimeoutMs: number;
  /** Ms a connection has to deliver a whole request, head and body. */
  requestTimeoutMs: number;
  /** Ms an idle keep-alive connection is kept between requests. */
  keepAliveTimeoutMs: number;
  /** Connections open at once; past it the oldest idle one is closed for the new one, else the new one is. */
  maxConnections: number;
}

export interface ConnectionFlag {
  key: keyof ConnectionLimits;
  /** Without the leading dashes. */
  flag: string;
  description: string;
  default: number;
  min: number;
}

/** The four flags of both servers, with their safe defaults (docs/limits.md "Connections"). */
export const CONNECTION_FLAGS: readonly ConnectionFlag[] = [
  {
    key: "headerTimeoutMs",
    flag: "header-timeout-ms",
    description:
      "ms a connection has to send a complete request head, counted from its first byte or from being opened; then it is answered 408 and closed",
    default: 10_000,
    min: 100,
  },
  {
    key: "requestTimeoutMs",
    flag: "request-timeout-ms",
    description: "ms a connection has to send a whole request, head and body; then it is answered 408 and closed",
    default: 120_000,
    min: 1000,
  },
  {
    key: "keepAliveTimeoutMs",
    flag: "keep-alive-timeout-ms",
    description: "ms an idle keep-alive connection is kept open between two requests",
    default: 5_000,
    min: 100,
  },
  {
    key: "maxConnections",
    flag: "max-connections",
    description:
      "connections open at once; past it a new one closes the oldest connection with no request in progress, or is closed itself when every one is busy",
    default: 1_000,
    min: 1,
  },
];

export const DEFAULT_CONNECTION_LIMITS: ConnectionLimits = Object.fromEntries(
  CONNECTION_FLAGS.map((f) => [f.key, f.default]),
) as unknown as ConnectionLimits;

/**
 * Node's createServer options for the timeouts. The expiry check runs every quarter of the
 * header timeout (at most every second), so a connection is closed within 1.25 timeouts.
 */
export function serverOptions(limits: ConnectionLimits): ServerOptions {
  return {
    headersTimeout: limits.headerTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    connectionsCheckingInterval: Math.min(1000, Math.max(25, Math.floor(limits.headerTimeoutMs / 4))),
  };
}

export interface ConnectionGuard {
  /** Connections open now. */
  open(): number;
  /** New connections closed at once because every open one was busy, since start. */
  refused(): number;
  /** Open connections closed to make room for a new one, since start. */
  evicted(): number;
}

/**
 * Caps the connections of `server` at `limits.maxConnections` (set the timeouts with
 * serverOptions). Past the cap a new connection first closes the oldest connection that has no
 * request in progress — one still sending its head (a slowloris), one that never sent a byte,
 * an idle keep-alive one — so a flood of such sockets cannot lock others out, and a /healthz
 * probe still gets in. When every open connection is busy with a request, the new one is closed
 * at once, before a byte is read: a refusal costs one accept and one close. `onRefused` hears
 * each such closing (for a throttled log line).
 */
export function guardConnections(
  server: Server,
  limits: ConnectionLimits,
  onRefused: (what: "refused" | "evicted") => void = () => {},
): ConnectionGuard {
  // Insertion order is age: the first key is the connection idle the longest.
  const idle = new Map<Socket, true>();
  const busy = new Map<Socket, number>();
  let refused = 0;
  let evicted = 0;
  const open = () => idle.size + busy.size;

  server.on("connection", (socket: Socket) => {
    if (open() >= limits.maxConnections) {
      const oldest = idle.keys().next();
      if (oldest.done) {
        refused++;
        onRefused("refused");
        socket.destroy();
        return;
      }
      idle.delete(oldest.value);
      evicted++;
      onRefused("evicted");
      oldest.value.destroy();
    }
    idle.set(socket, true);
    socket.once("close", () => {
      idle.delete(socket);
      busy.delete(socket);
    });
  });

  // A request's head has arrived: its connection is busy until the answer is written or it closes.
  server.on("request", (req: IncomingMessage, res: ServerResponse) => {
    const socket = req.socket;
    if (socket.destroyed) return;
    idle.delete(socket);
    busy.set(socket, (busy.get(socket) ?? 0) + 1);
    res.once("close", () => {
      const n = (busy.get(socket) ?? 1) - 1;
      if (n > 0) return void busy.set(socket, n);
      busy.delete(socket);
      if (!socket.destroyed) idle.set(socket, true);
    });
  });

  return { open, refused: () => refused, evicted: () => evicted };
}
