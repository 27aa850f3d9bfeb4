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

/**
 * `log` with `fields` on every line, before the line's own (the API's `trace_id` and `span_id`
 * of the span a request or an advance runs in, docs/tracing.md "Logs").
 */
export function withFields(log: Logger, fields: Record<string, unknown>): Logger {
  return {
    debug: (m, f) => log.debug(m, { ...fields, ...f }),
    info: (m, f) => log.info(m, { ...fields, ...f }),
    warn: (m, f) => log.warn(m, { ...fields, ...f }),
    error: (m, f) => log.error(m, { ...fields, ...f }),
  };
}

export function isLogLevel(value: string): value is LogLevel {
  return Object.hasOwn(ORDER, value);
}

/** A log line written at most once per interval per key, however often it happens. */
export interface ThrottledLog {
  /**
   * Logs `msg` now when no line with this `key` went out in the last interval; otherwise counts
   * it, and the next line that goes out carries `suppressed`: how many were not written since.
   */
  log(key: string, msg: string, fields?: Record<string, unknown>): void;
}

/**
 * For events an outsider can cause as fast as they can send requests (a refused credential, a
 * refused connection): one line per `key` per `intervalMs`, so a flood costs a few lines, not one
 * per request. At most `maxKeys` keys are remembered (the oldest forgotten first).
 */
export function throttledLog(
  write: (msg: string, fields?: Record<string, unknown>) => void,
  intervalMs: number,
  now: () => number = Date.now,
  maxKeys = 1000,
): ThrottledLog {
  const last = new Map<string, { at: number; suppressed: number }>();
  return {
    log(key, msg, fields) {
      const t = now();
      const seen = last.get(key);
      if (seen && t - seen.at < intervalMs) {
        seen.suppressed++;
        return;
      }
      last.delete(key);
      if (last.size >= maxKeys) last.delete(last.keys().next().value as string);
      last.set(key, { at: t, suppressed: 0 });
      write(msg, seen?.suppressed ? { ...fields, suppressed: seen.suppressed } : fields);
    },
  };
}
