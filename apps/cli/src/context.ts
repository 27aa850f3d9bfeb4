import { type BatonClient, createClient } from "@baton/actions";
import type { CliIo } from "./cli-io.js";
import { readConfig } from "./config-file.js";
import { type Connection, resolveConnection } from "./connection.js";
import { createOutput, type GlobalFlags, type Output } from "./output.js";
import { cliVersion } from "./version.js";

export type ApiClient = BatonClient;

/** What a command action works with; the connection and client are made on first use. */
export interface Context {
  io: CliIo;
  flags: GlobalFlags;
  out: Output;
  connection(): Promise<Connection>;
  api(): Promise<ApiClient>;
}

export function createContext(io: CliIo, flags: GlobalFlags, onConnection: (connection: Connection) => void): Context {
  let connection: Promise<Connection> | undefined;
  let client: Promise<ApiClient> | undefined;
  const context: Context = {
    io,
    flags,
    out: createOutput(io, flags),
    connection() {
      connection ??= readConfig(io).then((config) => {
        const resolved = resolveConnection(flags, io.env, config);
        onConnection(resolved);
        return resolved;
      });
      return connection;
    },
    api() {
      client ??= context.connection().then((resolved) =>
        createClient({
          server: resolved.server,
          token: resolved.token,
          fetch: io.fetch,
          userAgent: `baton-cli/${cliVersion()}`,
        }),
      );
      return client;
    },
  };
  return context;
}
