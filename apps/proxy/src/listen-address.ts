export interface ListenAddress {
  host: string;
  /** 0 = any free port. */
  port: number;
}

/** Parses `HOST:PORT`, `:PORT` (all interfaces), `[::1]:PORT` or `PORT`. Throws with the expected forms. */
export function parseListenAddress(value: string, source = "--http"): ListenAddress {
  const m = /^(?:\[([^\]]+)\]|([^:[\]]*)):(\d+)$/.exec(value) ?? /^()()(\d+)$/.exec(value);
  const port = m ? Number(m[3]) : Number.NaN;
  if (!m || !Number.isInteger(port) || port > 65535) {
    throw new Error(`${source} "${value}" is not a listen address; expected HOST:PORT, :PORT or PORT (0-65535)`);
  }
  return { host: m[1] || m[2] || "0.0.0.0", port };
}

/** Only this machine can connect: `localhost`, `127.0.0.0/8` or `::1`. */
export function isLoopbackHost(host: string): boolean {
  return host === "localhost" || host === "::1" || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** The address as bound, `0.0.0.0:8448` or `[::1]:8448`: what the `listening` line reports as `bind`. */
export function formatBindAddress(host: string, port: number): string {
  return `${host.includes(":") ? `[${host}]` : host}:${port}`;
}

/** A URL to open on this machine: a wildcard bind is reached through loopback. */
export function formatListenUrl(host: string, port: number): string {
  const shown = host === "0.0.0.0" || host === "::" ? "127.0.0.1" : host;
  return `http://${shown.includes(":") ? `[${shown}]` : shown}:${port}`;
}
