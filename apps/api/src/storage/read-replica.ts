import type { Logger } from "@baton/log";
import { sql } from "drizzle-orm";
import { drizzle as drizzlePg } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import { type Db, rowsOf, schema } from "./db.js";

// --read-db (docs/deploy.md "Read replicas"): the read-only handlers' statements go to a
// streaming replica while it is at most --read-db-max-lag behind the primary, else to the
// primary. The bound is measured, not assumed: every SAMPLE_MS the primary's WAL position is
// recorded with the time it was read, and the replica's replay position is compared with those
// records. A replica that has replayed the position the primary had at time t holds every
// transaction committed before t; its staleness is now − the latest such t.

/** What a read-only handler reads from: the replica while it is fresh enough, else the primary. */
export interface ReadReplica {
  /** The database a read should use now. */
  reads(): Db;
  /** Milliseconds the replica is behind at most, as of now; undefined when unknown (unreachable). */
  staleness(): number | undefined;
  close(): Promise<void>;
}

/** The replica's pool: reads only, a few at a time. */
const POOL_SIZE = 5;

/** A WAL position "X/Y" (hex) as a number comparable across samples. */
export function walPosition(text: string): bigint {
  const [high, low] = text.split("/");
  return (BigInt(`0x${high}`) << 32n) + BigInt(`0x${low}`);
}

/**
 * The staleness bound at `now` from the primary's samples (oldest first) and the replica's
 * replay position read at `replayedAt`: now − the latest sample time whose position the replica
 * has replayed. Undefined when it has replayed none of them (behind the whole window).
 */
export function stalenessOf(
  samples: ReadonlyArray<{ at: number; position: bigint }>,
  replayed: bigint,
  now: number,
): number | undefined {
  for (let i = samples.length - 1; i >= 0; i--) if (samples[i]!.position <= replayed) return now - samples[i]!.at;
  return undefined;
}

export function openReadReplica(
  primary: Db,
  url: string,
  maxLagMs: number,
  connectTimeoutMs: number,
  log: Logger,
): ReadReplica {
  const client = postgres(url, { max: POOL_SIZE, onnotice: () => {}, connect_timeout: connectTimeoutMs / 1000 });
  const replica = drizzlePg(client, { schema }) as unknown as Db;
  const sampleMs = Math.max(50, Math.min(500, Math.floor(maxLagMs / 4)));
  const samples: Array<{ at: number; position: bigint }> = [];
  // The bound as of the last sample, and when that was: staleness grows by the time since.
  let known: { bound: number; at: number } | undefined;
  let lastState: "fresh" | "stale" | undefined;
  let stopped = false;
  const staleness = () => (known === undefined ? undefined : known.bound + (performance.now() - known.at));
  const sampleOnce = async () => {
    const at = performance.now();
    const [p] = rowsOf<{ lsn: string }>(await primary.execute(sql`SELECT pg_current_wal_lsn()::text AS lsn`));
    samples.push({ at, position: walPosition(p!.lsn) });
    // Keep the window the bound can use (twice the bound) and never more than a few hundred samples.
    while (samples.length > 2 && (at - samples[0]!.at > 2 * maxLagMs || samples.length > 400)) samples.shift();
    const [r] = rowsOf<{ lsn: string | null }>(
      await client`SELECT (CASE WHEN pg_is_in_recovery() THEN pg_last_wal_replay_lsn() ELSE pg_current_wal_lsn() END)::text AS lsn`,
    );
    const now = performance.now();
    const bound = r?.lsn ? stalenessOf(samples, walPosition(r.lsn), now) : undefined;
    known = bound === undefined ? undefined : { bound, at: now };
  };
  const loop = (async () => {
    while (!stopped) {
      try {
        await sampleOnce();
      } catch (error) {
        known = undefined;
        if (lastState !== "stale")
          log.warn("read replica unreachable: reads go to the primary", { error: String(error) });
        lastState = "stale";
      }
      const now = staleness();
      const fresh = now !== undefined && now <= maxLagMs;
      if (fresh && lastState !== "fresh") log.info("read replica within its staleness bound: reads go to it");
      if (!fresh && lastState === "fresh") log.warn("read replica past --read-db-max-lag: reads go to the primary");
      lastState = fresh ? "fresh" : "stale";
      await new Promise((resolve) => setTimeout(resolve, sampleMs).unref());
    }
  })();
  return {
    reads: () => {
      const s = staleness();
      return s !== undefined && s <= maxLagMs ? replica : primary;
    },
    staleness,
    close: async () => {
      stopped = true;
      await loop;
      await client.end({ timeout: 5 });
    },
  };
}
