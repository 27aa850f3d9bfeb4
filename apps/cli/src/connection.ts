import { UsageError } from "./cli-error.js";
import type { StoredConfig } from "./config-file.js";

export const DEFAULT_SERVER = "http://127.0.0.1:8449";

export interface Connection {
  server: string;
  token?: string;
}

/** Server and token from flag > environment > config file > default. */
export function resolveConnection(
  flags: { server?: string; token?: string },
  env: Record<string, string | undefined>,
  config: StoredConfig,
): Connection {
  const server = normalizeServer(flags.server || env.BATON_SERVER || config.server || DEFAULT_SERVER);
  // The stored token belongs to the stored server: never send it to another one.
  const configToken = config.server && normalizeServer(config.server) === server ? config.token : undefined;
  const token = flags.token || env.BATON_TOKEN || configToken || undefined;
  return { server, token };
}

export function normalizeServer(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(`invalid server URL "${text}": expected something like ${DEFAULT_SERVER}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new UsageError(`invalid server URL "${text}": only http:// and https:// are supported`);
  }
  if (url.search || url.hash)
    throw new UsageError(`invalid server URL "${text}": it must not have a query or fragment`);
  return url.href.replace(/\/+$/, "");
}
