// Shared by the engine-*.test.ts files: the engine in-process on a real database (PGlite, or a
// fresh PostgreSQL database when DATABASE_URL is set), with the service clock under test control.
import { type Json, parseJson, stringifyJson } from "@baton/expr";
import { canonicalJson, declaredRaises, decodeDefinition, definitionHash, formatProblems } from "@baton/model";
import { dropTestDatabase, freshPgliteDir, freshTestDatabase, removePgliteDir } from "@baton/testkit";
import { and, desc, eq, max } from "drizzle-orm";
import { DEFAULT_CONFIG, type ServerConfig } from "../../src/config.js";
import { createChecker, type Checker } from "../../src/definitions/checker.js";
import { createEngine, type EngineDeps } from "../../src/engine/index.js";
import type { UpgradeCheck } from "../../src/engine/trees/upgrade.js";
import { freshInstanceRow, freshState } from "../../src/engine/starts/fresh-row.js";
import type { Logger } from "@baton/log";
import type { EngineHandle } from "../../src/engine/index.js";
import { createClock } from "../../src/clock.js";
import { type Database, type Db, openDatabase } from "../../src/storage/db.js";
import { newId } from "../../src/storage/ids.js";
import { definitions, instances, logs } from "../../src/storage/schema/index.js";

export const quietLog: Logger = { debug() {}, info() {}, warn() {}, error() {} };

export interface Harness {
  db: Db;
  database: Database;
  clock: ReturnType<typeof createClock>;
  config: ServerConfig;
  engine: EngineHandle;
  /** The definition checker's threads (one thread, the server's default queue). */
  checker: Checker;
  /** What upgradeTree needs to check compatibility: this harness's checker and the configured limit. */
  upgradeCheck(more?: Partial<UpgradeCheck>): UpgradeCheck;
  deploy(raw: unknown): Promise<number>;
  start(process: string, input?: Json, version?: number): Promise<string>;
  /** Deploys `raw` as a new version and starts one instance of that version: the usual set-up of a test. */
  deployAndStart(raw: unknown, input?: Json): Promise<string>;
  get(id: string): Promise<InstanceView>;
  logs(
    id: string,
  ): Promise<
    Array<{ event: string; level: string; task: string | null; actor: string | null; data: Json; message: string }>
  >;
  tick(advanceMs?: number): Promise<number>;
  /** Ticks until `id` leaves `running` (or `limit` ticks), advancing the clock by `stepMs` each time. */
  runToEnd(id: string, stepMs?: number, limit?: number): Promise<InstanceView>;
  newEngine(workerId: string, overrides?: Partial<ServerConfig>, hooks?: Pick<EngineDeps, "beforeWrite">): EngineHandle;
  close(): Promise<void>;
}

export interface InstanceView {
  id: string;
  status: string;
  task: string;
  state: any;
  output: Json | undefined;
  errorCode: string | null;
  errorMessage: string | null;
  retryCount: number;
  taskEpoch: number;
  leaseEpoch: number;
  leaseOwner: string | null;
  previousOwner: string | null;
  wakeAt: number | null;
  requested: string | null;
}

export async function openHarness(overrides: Partial<ServerConfig> = {}, workerId = "worker-a"): Promise<Harness> {
  const url = process.env.DATABASE_URL ? await freshTestDatabase() : undefined;
  // On PGlite a copy of the migrated template: `memory://` would run initdb in WASM on every open.
  const dataDir = url ? undefined : await freshPgliteDir();
  const database = await openDatabase({ url, dataDir, poolSize: 5 });
  const db = database.db;
  const clock = createClock();
  const config: ServerConfig = { ...DEFAULT_CONFIG, pollMs: 0, ...overrides };
  const engines: EngineHandle[] = [];
  const newEngine = (id: string, more: Partial<ServerConfig> = {}, hooks: Pick<EngineDeps, "beforeWrite"> = {}) => {
    const engine = createEngine({ db, clock, config: { ...config, ...more }, log: quietLog, workerId: id, ...hooks });
    engines.push(engine);
    return engine;
  };
  const engine = newEngine(workerId);
  const checker = createChecker({ threads: 1, queue: config.limits.checkerQueue });

  const harness: Harness = {
    db,
    database,
    clock,
    config,
    engine,
    checker,
    upgradeCheck: (more = {}) => ({ checker, maxCompatSteps: config.limits.compatSteps, ...more }),
    newEngine,
    async deploy(raw) {
      const decoded = decodeDefinition(raw);
      if (!decoded.ok) throw new Error(formatProblems(decoded.problems));
      const def = decoded.definition;
      const [{ latest }] = await db
        .select({ latest: max(definitions.version) })
        .from(definitions)
        .where(eq(definitions.name, def.name));
      const version = (latest ?? 0) + 1;
      await db.insert(definitions).values({
        name: def.name,
        version,
        definition: canonicalJson(def),
        hash: definitionHash(def),
        raises: JSON.stringify(declaredRaises(def)),
        createdAt: clock.now(),
      });
      return version;
    },
    async start(process, input = {}, version) {
      const [row] = await db
        .select({ version: definitions.version, definition: definitions.definition })
        .from(definitions)
        .where(
          version === undefined
            ? eq(definitions.name, process)
            : and(eq(definitions.name, process), eq(definitions.version, version)),
        )
        .orderBy(desc(definitions.version))
        .limit(1);
      const def = parseJson(row.definition) as any;
      const now = clock.now();
      const id = newId(now);
      await db.insert(instances).values(
        freshInstanceRow({
          id,
          process,
          version: row.version,
          task: def.tasks[0].id,
          state: stringifyJson(freshState(input)),
          now,
        }),
      );
      return id;
    },
    async deployAndStart(raw, input) {
      const version = await harness.deploy(raw);
      return harness.start((raw as { name: string }).name, input, version);
    },
    async get(id) {
      const [row] = await db.select().from(instances).where(eq(instances.id, id));
      return {
        id: row.id,
        status: row.status,
        task: row.task,
        state: parseJson(row.state),
        output: row.output === null ? undefined : parseJson(row.output),
        errorCode: row.errorCode,
        errorMessage: row.errorMessage,
        retryCount: row.retryCount,
        taskEpoch: row.taskEpoch,
        leaseEpoch: row.leaseEpoch,
        leaseOwner: row.leaseOwner,
        previousOwner: row.previousOwner,
        wakeAt: row.wakeAt,
        requested: row.requested,
      };
    },
    async logs(id) {
      const rows = await db.select().from(logs).where(eq(logs.instanceId, id)).orderBy(logs.id);
      return rows.map((r) => ({
        event: r.event,
        level: r.level,
        task: r.task,
        actor: r.actor,
        message: r.message,
        data: r.data === null ? null : parseJson(r.data),
      }));
    },
    async tick(advanceMs = 0) {
      if (advanceMs > 0) clock.advance(advanceMs);
      return engine.tick();
    },
    async runToEnd(id, stepMs = 0, limit = 50) {
      for (let i = 0; i < limit; i++) {
        const view = await harness.get(id);
        if (view.status !== "running") return view;
        await harness.tick(stepMs);
      }
      return harness.get(id);
    },
    async close() {
      for (const e of engines) await e.stop();
      await checker.close();
      await database.close();
      if (url) await dropTestDatabase(url);
      if (dataDir) removePgliteDir(dataDir);
    },
  };
  return harness;
}

/** A harness on the default configuration with `definitions` registered, in order. */
export async function harnessWith(...definitions: unknown[]): Promise<Harness> {
  const harness = await openHarness();
  for (const definition of definitions) await harness.deploy(definition);
  return harness;
}

/**
 * A second engine whose write for `instanceId` is held: `computed` settles once that advance is
 * computed, and its write is sent only after `release()`. A test lands a concurrent change (a
 * resolve, a verb) in exactly that window instead of racing for it.
 */
export function heldWrite(h: Harness, workerId: string, instanceId: string) {
  let computedNow!: () => void;
  const computed = new Promise<void>((resolve) => (computedNow = resolve));
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const engine = h.newEngine(
    workerId,
    {},
    {
      beforeWrite: async (id) => {
        if (id !== instanceId) return;
        computedNow();
        await released;
      },
    },
  );
  return { engine, computed, release };
}
