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

export function formatListenUrl(host: string, port: number): string {
  const shown = host === "0.0.0.0" || host === "::" ? "127.0.0.1" : host;
  return `http://${shown.includes(":") ? `[${shown}]` : shown}:${port}`;
}
