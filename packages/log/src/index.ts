/**
 * The four levels, least severe first: of this process log, and of an instance's audit log
 * (the API's log entries, packages/actions) alike.
 */
export const LOG_LEVELS = ["debug", "info", "warn", "error"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

/**
 * Structured JSON lines on stderr, one shape for baton-api and baton-proxy. Callers must never
 * pass a secret (token, JWT, password, cookie, client secret, config value marked secret) in
 * `fields`: there is no scrubbing here to rely on.
 */
export function createLogger(
  level: LogLevel = "info",
  write: (line: string) => void = (l) => process.stderr.write(l),
): Logger {
  const emit = (lvl: LogLevel, msg: string, fields?: Record<string, unknown>) => {
    if (ORDER[lvl] < ORDER[level]) return;
    write(`${JSON.stringify({ time: new Date().toISOString(), level: lvl, msg, ...fields })}\n`);
  };
  return {
    debug: (m, f) => emit("debug", m, f),
    info: (m, f) => emit("info", m, f),
    warn: (m, f) => emit("warn", m, f),
    error: (m, f) => emit("error", m, f),
  };
}

export function isLogLevel(value: string): value is LogLevel {
  return Object.hasOwn(ORDER, value);
}
