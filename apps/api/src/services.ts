import type { ClaimedRow } from "./engine/pump/claim.js";
import type { InMemoryAdvance } from "./engine/pump/advance-basis.js";
import type { Database, Db, DbKind } from "./storage/db.js";
import type { Clock } from "./storage/clock.js";
import type { Logger } from "@baton/log";
import type { ServerConfig } from "./config.js";
import type { Metrics } from "./metrics/metrics.js";
import type { Checker } from "./definitions/checker.js";

/** What the engine exposes to the HTTP layer and to /healthz. */
export interface EngineHandle {
  /** Ask the pump to look for due work now (after a start, resolve, resume…). */
  wake(): void;
  /** One full claim round; resolves with the number of instances advanced once their writes are committed. */
  tick(): Promise<number>;
  /** Milliseconds since this worker last renewed or took a lease (0 when idle). */
  leaseAgeMs(): number;
  /** Stop claiming, let in-flight advances finish (bounded), release leases. */
  stop(): Promise<void>;
  /**
   * Lease chaining from a request (docs/engine.md "Carried advances"). `write` is the request's
   * own statement: given a worker id it takes the instance's lease in that statement and returns
   * the row as leased, which this engine then runs like a claimed row (no claim round, no wake);
   * given null (the pump is off or stopping, every slot is taken, or the instance is already in
   * flight here) it leaves the row due for any pump, and the pump is woken.
   */
  carry<T>(instanceId: string, write: (carrier: string | null) => Promise<Carried<T>>): Promise<T>;
  /**
   * The advance this engine would run next for `row` (a row a request holds the facts of and is
   * about to write), computed in memory with no I/O; undefined when it needs I/O or cannot be
   * stored without objects (docs/engine.md "One advance in memory"). Nothing is written.
   */
  advanceInMemory(row: ClaimedRow): Promise<InMemoryAdvance | undefined>;
}

/** What a carried write hands back: its answer, and the row when the lease was taken. */
export interface Carried<T> {
  value: T;
  leased?: ClaimedRow;
}

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
