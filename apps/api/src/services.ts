import type { Logger } from "@baton/log";
import type { Clock } from "./clock.js";
import type { ServerConfig } from "./config.js";
import type { Checker } from "./definitions/checker.js";
import type { EngineHandle } from "./engine/index.js";
import type { Metrics } from "./metrics/metrics.js";
import type { Database, Db, DbKind } from "./storage/db.js";

/** What a handler is handed: the process's dependencies, built once by server.ts. */
export interface Services {
  db: Db;
  /**
   * Where a read-only handler reads (lists, counts, views, logs, definitions): the --read-db
   * replica while it is within its staleness bound, else `db` (docs/deploy.md "Read replicas").
   * Absent without --read-db and in tests that build Services by hand: `db`.
   */
  readDb?: () => Db;
  database: Database;
  dbKind: DbKind;
  clock: Clock;
  config: ServerConfig;
  log: Logger;
  /** Unique per process: host, pid and a random suffix. */
  workerId: string;
  engine: EngineHandle;
  /** The definition checker's threads (definitions/checker.ts): every registration check runs there. */
  checker: Checker;
  /** True once this server began shutting down (/readyz answers 503); absent in tests that build Services by hand. */
  shuttingDown?: () => boolean;
  /** Prometheus metrics of this process (docs/metrics.md); absent in tests that build Services by hand. */
  metrics?: Metrics;
}

/** The database a read-only handler reads from now (Services.readDb). */
export function readerOf(services: Services): Db {
  return services.readDb?.() ?? services.db;
}
