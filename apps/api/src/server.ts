import { hostname } from "node:os";
import { randomBytes } from "node:crypto";
import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import { guardConnections, serverOptions } from "@baton/http-edge";
import { serve, type ServerType } from "@hono/node-server";
import { createAuthenticator } from "./auth/index.js";
import type { ServerConfig } from "./config.js";
import { createEngine, declareSecretValues, endClaimWaits, startRetention } from "./engine/index.js";
import { handlers } from "./handlers/index.js";
import { createApp } from "./http/app.js";
import { answerClientErrors } from "./http/client-errors.js";
import { type Logger, throttledLog } from "@baton/log";
import type { Services } from "./services.js";
import { createClock } from "./clock.js";
import { openDatabase } from "./storage/db.js";
import { openReadReplica, type ReadReplica } from "./storage/read-replica.js";
import { createMetrics } from "./metrics/metrics.js";
import { createChecker } from "./definitions/checker.js";
import { boundDefinitionCaches } from "./definitions/cache-bound.js";
import { startSampler } from "./metrics/sampler.js";
import { connectionAccepted } from "./event-loop.js";
import { ambiguousVariables, readSettingFiles, secretVariables, withholdGlobals } from "./setting-grants.js";
import { definitionsDeclaringConfig } from "./definitions/store.js";
import { useObjectKey } from "./storage/object-key.js";
import { tracing } from "./tracing/index.js";

export interface RunningServer {
  url: string;
  services: Services;
  /** Stop accepting, let the engine drain (bounded), close the database. Idempotent. */
  close(): Promise<void>;
}

function formatUrl(host: string, port: number): string {
  const shown = host === "0.0.0.0" || host === "::" ? "127.0.0.1" : host;
  return `http://${shown.includes(":") ? `[${shown}]` : shown}:${port}`;
}

/**
 * Withholds the globals not shared (--share-global) and warns, once at start, about each
 * withheld global and each variable two processes' settings read (docs/security.md "The secret model").
 */
async function warnAboutSettings(db: Services["db"], config: ServerConfig, log: Logger): Promise<void> {
  const filed = readSettingFiles(process.env);
  for (const variable of withholdGlobals(process.env, config.sharedGlobals))
    log.warn("global setting withheld", {
      variable,
      reason: `no process may read ${variable}: share it with --share-global ${variable.slice("BATON_GLOBAL_".length)}, or set it for each process that needs it as BATON_<PROCESS>_<NAME>`,
    });
  for (const { variable, readers } of ambiguousVariables(await definitionsDeclaringConfig(db), process.env))
    log.warn("ambiguous setting variable", {
      variable,
      readers,
      reason: `${variable} is read by the settings ${readers.join(" and ")} of different processes: each reads the same value; rename one setting so their variables differ`,
    });
  const secret = secretVariables(process.env, config.secretVariables, filed);
  declareSecretValues(
    process.env,
    secret.map((variable) => process.env[variable]!),
  );
  if (secret.length > 0) log.info("secret variables", { variables: secret });
}

export async function startServer(config: ServerConfig, log: Logger): Promise<RunningServer> {
  const database = await openDatabase({ url: config.dbUrl, dataDir: config.dataDir, timeouts: config.dbTimeouts });
  boundDefinitionCaches(database.db, config.limits.definitionCache);
  await warnAboutSettings(database.db, config, log);
  await useObjectKey(database.db);
  const clock = createClock();
  const workerId = `${hostname()}:${process.pid}:${randomBytes(3).toString("hex")}`;
  let engine: Services["engine"] | undefined;
  let server: ServerType | undefined;
  let stopSampler: (() => Promise<void>) | undefined;
  let stopRetention: (() => Promise<void>) | undefined;
  let replica: ReadReplica | undefined;
  const metrics = createMetrics({ pool: database.pool, exemplars: tracing() !== undefined });
  let closing: Promise<void> | undefined;
  const checker = createChecker({ threads: config.limits.checkerThreads, queue: config.limits.checkerQueue });
  try {
    const authenticator = await createAuthenticator(config, { db: database.db, clock, log });
    // Parallel write transactions need a pool of connections: PGlite has one.
    engine = createEngine({
      db: database.db,
      clock,
      config,
      log,
      workerId,
      writers: database.kind === "postgres" ? 3 : 1,
      metrics: metrics.engine,
    });
    stopSampler = startSampler(database.db, clock, metrics, log);
    stopRetention = startRetention(
      database.db,
      clock,
      { retentionMs: config.retentionMs, logRetentionMs: config.logRetentionMs },
      log,
      (pass) => {
        for (const [table, rows] of Object.entries(pass.rows)) metrics.pruned(table, rows);
      },
    );
    replica = config.readDbUrl
      ? openReadReplica(database.db, config.readDbUrl, config.readDbMaxLagMs, config.dbTimeouts.connectTimeoutMs, log)
      : undefined;
    const services: Services = {
      db: database.db,
      ...(replica ? { readDb: replica.reads } : {}),
      database,
      dbKind: database.kind,
      clock,
      config,
      log,
      workerId,
      engine,
      checker,
      metrics,
      shuttingDown: () => closing !== undefined,
    };
    const app = createApp(services, handlers, authenticator);
    const address = await new Promise<AddressInfo>((resolve, reject) => {
      const s = serve(
        {
          fetch: app.fetch,
          hostname: config.host,
          port: config.port,
          serverOptions: serverOptions(config.limits),
        },
        (info) => resolve(info),
      );
      s.on("connection", connectionAccepted);
      // docs/limits.md "Connections": the timeouts above, the cap here; refusals logged at most every 10 s.
      const refusals = throttledLog((msg, fields) => log.warn(msg, fields), 10_000);
      guardConnections(s as Server, config.limits, (what) =>
        refusals.log(what, `connection ${what}: --max-connections (${config.limits.maxConnections}) are open`, {
          max_connections: config.limits.maxConnections,
        }),
      );
      s.once("error", reject);
      answerClientErrors(s);
      server = s;
    });
    const url = formatUrl(config.host, address.port);
    log.info("listening", {
      url,
      database: database.kind,
      worker_id: workerId,
      auth: config.auth,
      poll_ms: config.pollMs,
    });
    return {
      url,
      services,
      close: () =>
        (closing ??= (async () => {
          // Long-polling claims answer now, or closing would wait out their wait_ms.
          endClaimWaits(database.db);
          await new Promise<void>((resolve) => server!.close(() => resolve()));
          await engine!.stop();
          await checker.close();
          await stopSampler?.();
          await stopRetention?.();
          await replica?.close();
          await database.close();
        })()),
    };
  } catch (error) {
    if (server) server.close();
    await engine?.stop().catch(() => {});
    await checker.close().catch(() => {});
    await stopSampler?.().catch(() => {});
    await stopRetention?.().catch(() => {});
    await replica?.close().catch(() => {});
    await database.close().catch(() => {});
    throw error;
  }
}
