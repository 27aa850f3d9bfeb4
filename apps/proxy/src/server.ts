import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import { type ConnectionLimits, guardConnections, serverOptions } from "@baton/http-edge";
import { serve, type ServerType } from "@hono/node-server";
import { createProxyApp } from "./app.js";
import type { ProxyConfig } from "./config.js";
import { formatBindAddress, formatListenUrl, isLoopbackHost, type ListenAddress } from "./listen-address.js";
import { type Logger, throttledLog } from "@baton/log";

export interface StartOptions {
  config: ProxyConfig | null;
  /** The API to proxy to (config `server`, else `--server`). */
  server: string;
  listen: ListenAddress;
  uiDir: string;
  log: Logger;
  /** The connection flags (docs/limits.md "Connections"). */
  connections: ConnectionLimits;
}

export interface RunningProxy {
  url: string;
  /** The address really bound, `0.0.0.0:8448` (formatBindAddress). */
  bind: string;
  /** Stop accepting, finish requests in flight (open ones are cut after 10 s). Idempotent. */
  close(): Promise<void>;
}

/** Listens and logs `listening` with the URL (tests wait for that line). Rejects when the address cannot be bound. */
export async function startProxy(options: StartOptions): Promise<RunningProxy> {
  const { config, log } = options;
  const app = createProxyApp({
    config,
    server: options.server,
    uiDir: options.uiDir,
    log,
    loopbackHostsOnly: !config?.login && isLoopbackHost(options.listen.host),
  });
  let server: ServerType | undefined;
  const address = await new Promise<AddressInfo>((resolve, reject) => {
    const s = serve(
      {
        fetch: app.fetch,
        hostname: options.listen.host,
        port: options.listen.port,
        serverOptions: serverOptions(options.connections),
      },
      (info) => resolve(info),
    );
    s.once("error", reject);
    const refusals = throttledLog((msg, fields) => log.warn(msg, fields), 10_000);
    guardConnections(s as Server, options.connections, (what) =>
      refusals.log(what, `connection ${what}: --max-connections (${options.connections.maxConnections}) are open`, {
        max_connections: options.connections.maxConnections,
      }),
    );
    server = s;
  });
  const url = formatListenUrl(options.listen.host, address.port);
  const bind = formatBindAddress(options.listen.host, address.port);
  // `url` stays right after `msg`: spawnListening (testkit) reads it. `bind` is what is really bound.
  log.info("listening", {
    url,
    bind,
    server: options.server,
    login: config?.login
      ? { passwords: config.login.passwords.length, providers: config.login.providers.map((p) => p.id) }
      : false,
    ui_dir: options.uiDir,
  });
  let closing: Promise<void> | undefined;
  return {
    url,
    bind,
    close: () =>
      (closing ??= new Promise<void>((resolve) => {
        const s = server as unknown as import("node:http").Server;
        const force = setTimeout(() => s.closeAllConnections(), 10_000);
        force.unref();
        s.close(() => {
          clearTimeout(force);
          resolve();
        });
        s.closeIdleConnections();
      })),
  };
}
