import { bool, int, responseObject, str, strictObject, MAX_SPAN_MS } from "../schema.js";
import { action } from "./define.js";

const TAG = "debug";

const HEALTH_SCHEMA = responseObject(
  {
    status: str("`ok` when this worker reaches its database, `unavailable` when it cannot.", {
      enum: ["ok", "unavailable"],
    }),
    worker_id: str("This server process's worker id."),
    database: str("The storage driver in use.", { enum: ["postgres", "pglite"] }),
    lease_age_ms: int("How long ago this worker's engine last completed a poll cycle, in ms.", { minimum: 0 }),
    manual_tick: bool("True when polling is off and only `POST /tick` advances the engine."),
  },
  ["status", "worker_id", "database", "lease_age_ms", "manual_tick"],
  { title: "Health" },
);

const LIVENESS_SCHEMA = responseObject(
  {
    status: str("Always `ok`: the process answers.", { enum: ["ok"] }),
    worker_id: str("This server process's worker id."),
    uptime_ms: int("Milliseconds since this process started.", { minimum: 0 }),
  },
  ["status", "worker_id", "uptime_ms"],
  { title: "Liveness" },
);

const READINESS_SCHEMA = responseObject(
  {
    status: str("`ready` when this replica accepts work, `unavailable` when it does not.", {
      enum: ["ready", "unavailable"],
    }),
    worker_id: str("This server process's worker id."),
    database: str("The storage driver in use.", { enum: ["postgres", "pglite"] }),
    reason: str("Why it is not ready: `database` (no answer to the ping) or `stopping` (shutting down).", {
      enum: ["database", "stopping"],
    }),
  },
  ["status", "worker_id", "database"],
  { title: "Readiness" },
);

export const debugActions = [
  action({
    name: "health",
    method: "get",
    path: "/healthz",
    root: true,
    tag: TAG,
    summary: "Readiness probe",
    description:
      "Served at the server root (`/healthz`, outside `/api`) for probes, and at `/api/healthz` (an alias, the address this document gives it) so generated clients reach it with their base URL. 200 when this worker can reach its database, 503 (same body, `status: unavailable`) when it cannot.",
    permissions: "public",
    scope: { by: "none" },
    responses: {
      200: { description: "Ready.", schema: HEALTH_SCHEMA },
      503: { description: "The database is unreachable.", schema: HEALTH_SCHEMA },
    },
    errors: [400, 500, 503],
    example: {
      response: { status: "ok", worker_id: "api-1:4711", database: "postgres", lease_age_ms: 120, manual_tick: false },
    },
  }),
  action({
    name: "liveness",
    method: "get",
    path: "/livez",
    root: true,
    extension: true,
    tag: TAG,
    summary: "Liveness probe (extension)",
    description:
      "Extension: served at the server root (`/livez`) and at `/api/livez`. 200 as long as this process answers HTTP; it never touches the database, so a stopped database or a busy pool never fails it. " +
      'Restart a replica on this probe only (docs/deploy.md "Probes").',
    permissions: "public",
    scope: { by: "none" },
    responses: { 200: { description: "The process answers.", schema: LIVENESS_SCHEMA } },
    errors: [400, 500],
    example: { response: { status: "ok", worker_id: "api-1:4711:9f3a1c", uptime_ms: 86400000 } },
  }),
  action({
    name: "readiness",
    method: "get",
    path: "/readyz",
    root: true,
    extension: true,
    tag: TAG,
    summary: "Readiness probe (extension)",
    description:
      "Extension: served at the server root (`/readyz`) and at `/api/readyz`. 200 when this replica accepts work: its migrations are done (the server listens only after them), its database answers a ping on a connection of its own, and it is not shutting down. " +
      '503 (same body) otherwise, with `reason` saying which: route traffic away, never restart on it (docs/deploy.md "Probes").',
    permissions: "public",
    scope: { by: "none" },
    responses: {
      200: { description: "Ready for work.", schema: READINESS_SCHEMA },
      503: {
        description: "Not ready: the database does not answer, or the server is shutting down.",
        schema: READINESS_SCHEMA,
      },
    },
    errors: [400, 500, 503],
    example: { response: { status: "ready", worker_id: "api-1:4711:9f3a1c", database: "postgres" } },
  }),
  action({
    name: "metrics",
    method: "get",
    path: "/metrics",
    root: true,
    tag: TAG,
    summary: "Prometheus metrics (extension)",
    description:
      "Extension: served at the server root (`/metrics`, outside `/api`) in the Prometheus text format 0.0.4 — this replica's engine, HTTP, external-task and process metrics, and instance counts sampled from the database on a timer (every metric is listed in docs/metrics.md). " +
      "Under `--auth token` it needs a credential with `read` (give Prometheus a token of its own: `authorization.credentials_file`); under `--auth none` anyone who reaches the port may read it.",
    permissions: ["read"],
    scope: { by: "unscoped" },
    responses: {
      200: {
        description: "The metrics.",
        contentType: "text/plain; version=0.0.4",
        schema: { type: "string", description: "Prometheus text exposition format." },
      },
    },
    errors: [400, 500],
    example: { response: "# HELP baton_advances_total …\n# TYPE baton_advances_total counter\n…" },
  }),
  action({
    name: "tick",
    method: "post",
    path: "/tick",
    tag: TAG,
    summary: "Run one engine poll cycle (testing)",
    description:
      "Runs exactly one claim round of the engine, for servers started with polling off. With `advance_ms` the server clock first moves forward by that much, expiring leases and retry timers without real waiting. " +
      "For tests only; 501 where it is not enabled. The body may be omitted.",
    permissions: ["admin"],
    scope: { by: "unscoped" },
    body: strictObject({
      advance_ms: int("Move the server clock forward by this many ms first.", { minimum: 0, maximum: MAX_SPAN_MS }),
    }),
    bodyOptional: true,
    responses: {
      200: {
        description: "The round ran.",
        schema: responseObject({ count: int("Instances advanced in this round.", { minimum: 0 }) }, ["count"]),
      },
    },
    errors: [400, 500, 501],
    errorDescriptions: { 501: "Manual ticking is not enabled on this server." },
    example: { request: { body: { advance_ms: 60000 } }, response: { count: 2 } },
  }),
];
