import { describe, expect, it } from "vitest";
import type { ActionSpec, JsonSchema } from "./action-spec.js";
import { PERMISSIONS } from "./action-spec.js";
import { findAction, registry } from "./registry.js";
import { closed, queryAjv, requestAjv } from "./test-support/ajv.js";
import type { ActionName } from "./types.js";

// Written by hand from docs/api.md "Endpoints and their statuses" (every endpoint of the
// interface, with GET /objects/{ref} admitting worker or read, and the per-process description
// endpoints); extensions such as /metrics (docs/metrics.md) are in EXTENSION_TABLE.
// [method, path, permissions, "fails with"].
const ENDPOINT_TABLE: [string, string, ActionSpec["permissions"], number[]][] = [
  ["put", "/definitions", ["deploy"], [400, 500]],
  ["get", "/definitions", ["read"], [400, 500]],
  ["put", "/definitions/batch", ["deploy"], [400, 500]],
  ["post", "/definitions/validate", ["read"], [400, 500]],
  ["post", "/definitions/compat", ["read"], [400, 404, 500]],
  ["get", "/definitions/{name}/versions/{version}", ["read"], [400, 404, 500]],
  ["get", "/definitions/{name}/openapi.json", ["read"], [400, 404, 500]],
  ["get", "/definitions/{name}/docs", ["read"], [400, 404, 500]],
  ["get", "/channels", ["read"], [400, 500]],
  ["put", "/channels", ["deploy"], [400, 404, 500]],
  ["delete", "/channels", ["deploy"], [400, 500]],
  ["post", "/channels/promote", ["deploy"], [400, 404, 500]],
  ["post", "/channels/status", ["read"], [400, 404, 500]],
  // 409: the Idempotency-Key extension (docs/api.md).
  ["post", "/instances", ["operate"], [400, 404, 409, 500]],
  ["get", "/instances", ["read"], [400, 500]],
  ["get", "/instances/{id}", ["read"], [400, 404, 500]],
  ["get", "/instances/{id}/detail", ["read"], [400, 404, 500]],
  ["get", "/instances/{id}/logs", ["read"], [400, 404, 500]],
  ["post", "/instances/{id}/pause", ["operate"], [400, 404, 500]],
  ["post", "/instances/{id}/resume", ["operate"], [400, 404, 409, 500]],
  ["post", "/instances/{id}/cancel", ["operate"], [400, 404, 500]],
  ["post", "/instances/{id}/retry", ["operate"], [400, 404, 409, 500]],
  ["post", "/instances/{id}/upgrade", ["deploy"], [400, 404, 409, 500]],
  ["get", "/objects/{ref}", ["worker", "read"], [400, 404, 500]],
  ["post", "/external-tasks/claim", ["worker"], [400, 500]],
  ["post", "/external-tasks/renew", ["worker"], [400, 500]],
  ["post", "/external-tasks/release", ["worker"], [400, 409, 500]],
  ["post", "/external-tasks/resolve", ["worker"], [400, 404, 409, 500]],
  ["post", "/external-tasks/signal", ["worker"], [400, 404, 409, 500]],
  ["post", "/tokens", ["admin"], [400, 500]],
  ["get", "/tokens", ["admin"], [400, 500]],
  ["delete", "/tokens/{id}", ["admin"], [400, 404, 500]],
  ["get", "/healthz", "public", [400, 500, 503]],
  ["get", "/metrics", ["read"], [400, 500]],
  ["post", "/tick", ["admin"], [400, 500, 501]],
];

// The extensions beyond the interface (docs/api.md "Extensions"), in the same shape.
const EXTENSION_TABLE: [string, string, ActionSpec["permissions"], number[]][] = [
  ["get", "/instances/counts", ["read"], [400, 500]],
  ["get", "/instances/waits", ["read"], [400, 500]],
  ["get", "/instances/activity", ["read"], [400, 500]],
  ["get", "/external-tasks", ["read"], [400, 500]],
  ["post", "/external-tasks/resolve-batch", ["worker"], [400, 500]],
  ["post", "/instances/bulk/pause", ["operate"], [400, 500]],
  ["post", "/instances/bulk/resume", ["operate"], [400, 500]],
  ["post", "/instances/bulk/cancel", ["operate"], [400, 500]],
  ["post", "/instances/bulk/retry", ["operate"], [400, 500]],
  ["post", "/instances/bulk/upgrade", ["deploy"], [400, 500]],
  ["post", "/instances/bulk/reset", ["operate"], [400, 500]],
  ["post", "/instances/{id}/reset", ["operate"], [400, 404, 409, 500]],
  ["put", "/schedules/{name}", ["deploy"], [400, 409, 500]],
  ["get", "/schedules", ["read"], [400, 500]],
  ["get", "/schedules/{name}", ["read"], [400, 404, 500]],
  ["delete", "/schedules/{name}", ["deploy"], [400, 500]],
  ["post", "/schedules/{name}/pause", ["operate"], [400, 404, 500]],
  ["post", "/schedules/{name}/resume", ["operate"], [400, 404, 500]],
  ["post", "/schedules/{name}/trigger", ["operate"], [400, 404, 409, 500]],
  ["post", "/schedules/{name}/backfill", ["operate"], [400, 404, 500]],
  ["put", "/subscriptions/{name}", ["deploy"], [400, 409, 500]],
  ["get", "/subscriptions", ["read"], [400, 500]],
  ["get", "/subscriptions/{name}", ["read"], [400, 404, 500]],
  ["delete", "/subscriptions/{name}", ["deploy"], [400, 500]],
  ["post", "/subscriptions/{name}/rotate-secret", ["deploy"], [400, 404, 500]],
  ["post", "/subscriptions/{name}/resume", ["deploy"], [400, 404, 500]],
  ["get", "/subscriptions/{name}/deliveries", ["read"], [400, 404, 500]],
  ["post", "/subscriptions/{name}/redeliver", ["deploy"], [400, 404, 500]],
  ["put", "/hooks/{name}", ["deploy"], [400, 409, 500]],
  ["get", "/hooks", ["read"], [400, 500]],
  ["get", "/hooks/{name}", ["read"], [400, 404, 500]],
  ["delete", "/hooks/{name}", ["deploy"], [400, 500]],
  ["post", "/hooks/{name}", "public", [400, 401, 413, 500]],
  ["get", "/livez", "public", [400, 500]],
  ["get", "/readyz", "public", [400, 500, 503]],
  ["get", "/whoami", ["worker", "read", "operate", "deploy"], [400, 500]],
];

// Every ActionName, as a record so that adding a name to types.ts without listing it here fails to compile.
const NAMES: Record<ActionName, true> = {
  whoami: true,
  putDefinition: true,
  listDefinitions: true,
  putDefinitionBatch: true,
  validateDefinitions: true,
  compatDefinitions: true,
  getDefinition: true,
  getProcessOpenApi: true,
  getProcessDocs: true,
  listChannels: true,
  setChannel: true,
  deleteChannel: true,
  promoteChannel: true,
  channelStatus: true,
  startInstance: true,
  listInstances: true,
  countInstances: true,
  listFlowWaits: true,
  instanceActivity: true,
  bulkPauseInstances: true,
  bulkResumeInstances: true,
  bulkCancelInstances: true,
  bulkRetryInstances: true,
  bulkUpgradeInstances: true,
  listExternalTasks: true,
  getInstance: true,
  getInstanceDetail: true,
  listInstanceLogs: true,
  pauseInstance: true,
  resumeInstance: true,
  cancelInstance: true,
  retryInstance: true,
  upgradeInstance: true,
  getObject: true,
  claimExternalTasks: true,
  renewExternalTasks: true,
  releaseExternalTask: true,
  resolveExternalTask: true,
  resolveExternalTaskBatch: true,
  signalExternalTask: true,
  createToken: true,
  listTokens: true,
  revokeToken: true,
  health: true,
  liveness: true,
  readiness: true,
  metrics: true,
  tick: true,
  putSchedule: true,
  listSchedules: true,
  getSchedule: true,
  deleteSchedule: true,
  pauseSchedule: true,
  resumeSchedule: true,
  triggerSchedule: true,
  backfillSchedule: true,
  resetInstance: true,
  bulkResetInstances: true,
  putSubscription: true,
  listSubscriptions: true,
  getSubscription: true,
  deleteSubscription: true,
  rotateSubscriptionSecret: true,
  resumeSubscription: true,
  listDeliveries: true,
  redeliver: true,
  putHook: true,
  listHooks: true,
  getHook: true,
  deleteHook: true,
  receiveHook: true,
};

const key = (method: string, path: string) => `${method.toUpperCase()} ${path}`;

/** Every subschema reachable from `schema`, with a JSON-pointer-ish location. */
function* subschemas(schema: unknown, at: string): Generator<[JsonSchema, string]> {
  if (schema === null || typeof schema !== "object" || Array.isArray(schema)) return;
  const s = schema as JsonSchema;
  yield [s, at];
  for (const [k, v] of Object.entries(s.properties ?? {})) yield* subschemas(v, `${at}.properties.${k}`);
  if (typeof s.additionalProperties === "object")
    yield* subschemas(s.additionalProperties, `${at}.additionalProperties`);
  if (s.items) yield* subschemas(s.items, `${at}.items`);
  for (const combinator of ["oneOf", "anyOf", "allOf"]) {
    const branches = s[combinator];
    if (Array.isArray(branches))
      for (const [i, b] of branches.entries()) yield* subschemas(b, `${at}.${combinator}[${i}]`);
  }
}

function requestSchemas(spec: ActionSpec): [string, JsonSchema][] {
  const out: [string, JsonSchema][] = [];
  if (spec.params) out.push(["params", spec.params]);
  if (spec.query) out.push(["query", spec.query]);
  if (spec.body) out.push(["body", spec.body]);
  return out;
}

describe("registry", () => {
  it("declares exactly the documented endpoints with their permissions, and marks every other one an extension", () => {
    const actual = registry
      .filter((spec) => !spec.extension)
      .map((spec) => [key(spec.method, spec.path), spec.permissions])
      .sort();
    const expected = ENDPOINT_TABLE.map(([method, path, permissions]) => [key(method, path), permissions]).sort();
    expect(actual).toEqual(expected);
  });

  it("declares the extensions, each marked as one", () => {
    const actual = registry
      .filter((spec) => spec.extension)
      .map((spec) => [key(spec.method, spec.path), spec.permissions])
      .sort();
    expect(actual).toEqual(
      EXTENSION_TABLE.map(([method, path, permissions]) => [key(method, path), permissions]).sort(),
    );
  });

  it("declares every typed action name exactly once", () => {
    const names = registry.map((spec) => spec.name);
    expect(new Set(names).size, "names are operationIds and must be unique").toBe(names.length);
    expect([...names].sort()).toEqual(Object.keys(NAMES).sort());
  });

  it("has a unique method and path per entry", () => {
    const keys = registry.map((spec) => key(spec.method, spec.path));
    expect(new Set(keys).size).toBe(keys.length);
  });

  it("marks only the probes (public) and the /metrics extension as root, and only the probes and the hook receiver as public", () => {
    const roots = registry.filter((spec) => spec.root).map((spec) => spec.path);
    expect(roots).toEqual(["/healthz", "/livez", "/readyz", "/metrics"]);
    // A hook's signature is its credential (docs/events.md "Receiving").
    expect(registry.filter((spec) => spec.permissions === "public").map((spec) => spec.name)).toEqual([
      "receiveHook",
      "health",
      "liveness",
      "readiness",
    ]);
  });

  it("finds an action by name and names the known ones on a typo", () => {
    expect(findAction("getInstance").path).toBe("/instances/{id}");
    expect(() => findAction("getInstanse")).toThrow(/unknown action "getInstanse".*getInstance/);
  });

  describe.each(registry.map((spec) => [spec.name, spec] as const))("%s", (_, spec) => {
    it("names its action in camelCase and has a tag, summary and a description", () => {
      expect(spec.name).toMatch(/^[a-z][a-zA-Z]+$/);
      expect(spec.tag).toMatch(/^[a-z-]+$/);
      expect(spec.summary.length).toBeGreaterThan(5);
      expect(spec.description.length, "a description a user can act on").toBeGreaterThan(40);
    });

    it("lists only known permissions", () => {
      if (spec.permissions === "public") return;
      expect(spec.permissions.length).toBeGreaterThan(0);
      for (const permission of spec.permissions) expect(PERMISSIONS).toContain(permission);
    });

    it("declares a path parameter for each placeholder of its path, and no other", () => {
      const placeholders = [...spec.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]).sort();
      const declared = Object.keys((spec.params?.properties as object) ?? {}).sort();
      expect(declared).toEqual(placeholders);
      if (placeholders.length > 0)
        expect([...((spec.params?.required as string[] | undefined) ?? [])].sort()).toEqual(placeholders);
    });

    it("makes every request object strict and every required field declared", () => {
      for (const [part, schema] of requestSchemas(spec)) {
        for (const [sub, at] of subschemas(schema, part)) {
          if (sub.properties)
            expect(sub.additionalProperties, `${spec.name} ${at}: unknown fields must be refused`).toBe(false);
          for (const field of (sub.required as string[] | undefined) ?? []) {
            expect(
              Object.keys(sub.properties ?? {}),
              `${spec.name} ${at}: required "${field}" is not a property`,
            ).toContain(field);
          }
        }
      }
    });

    it("describes every path and query parameter", () => {
      for (const part of [spec.params, spec.query]) {
        for (const [name, property] of Object.entries((part?.properties ?? {}) as Record<string, JsonSchema>)) {
          expect(typeof property.description, `${spec.name} parameter ${name}`).toBe("string");
          expect(["string", "integer", "boolean"], `${spec.name} parameter ${name} is a scalar on the wire`).toContain(
            property.type,
          );
        }
      }
    });

    it("fails only with the statuses docs/api.md lists for it", () => {
      const row = [...ENDPOINT_TABLE, ...EXTENSION_TABLE].find(
        ([method, path]) => key(method, path) === key(spec.method, spec.path),
      );
      expect(row).toBeDefined();
      expect([...spec.errors].sort()).toEqual(row![3]);
      // A public endpoint gets no 401/403 from the builder; the hook receiver declares its own 401.
      if (spec.permissions !== "public")
        for (const status of spec.errors)
          expect(status, "401/403 are added by the OpenAPI builder").not.toBeOneOf([401, 403]);
    });

    it("declares success responses with schemas, or none only for 204", () => {
      const statuses = Object.keys(spec.responses).map(Number);
      expect(statuses.length).toBeGreaterThan(0);
      for (const status of statuses) {
        if (status === 204) expect(spec.responses[status].schema).toBeUndefined();
        else expect(spec.responses[status].schema, `${spec.name} ${status}`).toBeDefined();
      }
    });

    it("compiles every schema with strict ajv", () => {
      const ajv = requestAjv();
      for (const [, schema] of requestSchemas(spec)) expect(() => ajv.compile(schema)).not.toThrow();
      for (const response of Object.values(spec.responses))
        if (response.schema) expect(() => ajv.compile(response.schema!)).not.toThrow();
    });

    it("has an example whose request and response match the schemas", () => {
      expect(spec.example, "every entry documents a worked call").toBeDefined();
      const example = spec.example!;
      const ajv = requestAjv();
      const request = example.request ?? {};
      for (const [part, schema] of requestSchemas(spec)) {
        const value = (request as Record<string, unknown>)[part];
        const required = part === "params" || (part === "body" && !spec.bodyOptional);
        if (value === undefined && !required) continue;
        const validate = ajv.compile(schema);
        expect(validate(value), `${spec.name} example ${part}: ${ajv.errorsText(validate.errors)}`).toBe(true);
      }
      for (const part of Object.keys(request))
        expect(
          requestSchemas(spec).map(([p]) => p),
          `${spec.name} example has ${part}`,
        ).toContain(part);
      const status = example.status ?? Number(Object.keys(spec.responses)[0]);
      const schema = spec.responses[status]?.schema;
      expect(schema, `${spec.name}: example status ${status} has a schema`).toBeDefined();
      const validate = ajv.compile(closed(schema) as JsonSchema);
      expect(validate(example.response), `${spec.name} example response: ${ajv.errorsText(validate.errors)}`).toBe(
        true,
      );
    });
  });
});

describe("request schemas", () => {
  const ajv = requestAjv();
  const body = (name: string) => ajv.compile(findAction(name).body!);
  const query = (name: string) => queryAjv().compile(findAction(name).query!);

  it("refuses a misspelled body field, naming it", () => {
    const validate = body("startInstance");
    expect(validate({ process: "p", inptu: {} })).toBe(false);
    expect(validate.errors?.[0]).toMatchObject({
      keyword: "additionalProperties",
      params: { additionalProperty: "inptu" },
    });
  });

  it("accepts a resolve with a result or with an error outcome, not both and not neither-with-junk", () => {
    const validate = body("resolveExternalTask");
    expect(validate({ token: "t", result: { ok: true } })).toBe(true);
    expect(validate({ token: "t" }), "a result may be omitted (null result)").toBe(true);
    expect(validate({ token: "t", error: { code: "rejected", message: "no", data: { a: 1 } } })).toBe(true);
    expect(validate({ token: "t", result: 1, error: { code: "rejected" } })).toBe(false);
    expect(validate({ token: "t", error: { code: "http.500" } }), "authored codes have no dot").toBe(false);
    expect(validate({ token: "t", error: { message: "no code" } })).toBe(false);
  });

  it("accepts a signal by instance and task with either outcome", () => {
    const validate = body("signalExternalTask");
    expect(validate({ instance_id: "i", task: "approve", result: null })).toBe(true);
    expect(validate({ instance_id: "i", task: "approve", error: { code: "withdrawn" } })).toBe(true);
    expect(validate({ instance_id: "i", error: { code: "withdrawn" } })).toBe(false);
  });

  it("takes exactly one way to name a compat set", () => {
    const validate = body("compatDefinitions");
    expect(validate({ from: { channel: "prod" }, to: { definitions: [{ name: "x" }] } })).toBe(true);
    expect(
      validate({ from: { versions: { a: 3, b: "staging" } }, to: { channel: "prod" }, ignore: ["contract"] }),
    ).toBe(true);
    expect(validate({ from: { channel: "prod", versions: { a: 1 } }, to: { channel: "x" } })).toBe(false);
    expect(validate({ from: {}, to: { channel: "x" } })).toBe(false);
    expect(
      validate({ from: { channel: "a" }, to: { channel: "b" }, ignore: ["upgrade"] }),
      "only contract can be ignored",
    ).toBe(false);
  });

  it("requires at least one definition in a batch and a channel", () => {
    const validate = body("putDefinitionBatch");
    expect(validate({ definitions: [], channel: "prod" })).toBe(false);
    expect(validate({ definitions: [{ name: "a" }] })).toBe(false);
    expect(validate({ definitions: [{ name: "a" }], channel: "prod" })).toBe(true);
  });

  it("bounds claim limit, lease and long-poll wait and fills their defaults", () => {
    const validate = queryAjv().compile(findAction("claimExternalTasks").body!);
    const ok = { worker_id: "w" } as Record<string, unknown>;
    expect(validate(ok)).toBe(true);
    expect(ok, "defaults documented in the description are the schema's").toMatchObject({
      limit: 1,
      lease_ms: 30000,
      wait_ms: 0,
    });
    expect(validate({ worker_id: "w", wait_ms: 60000 })).toBe(true);
    expect(validate({ worker_id: "w", wait_ms: 60001 }), "the long-poll is bounded").toBe(false);
    expect(validate({ worker_id: "w", wait_ms: -1 })).toBe(false);
    expect(validate({ worker_id: "w", limit: 101 })).toBe(false);
    expect(validate({ worker_id: "w", lease_ms: 999 })).toBe(false);
    expect(validate({ worker_id: "w", lease_ms: 600001 })).toBe(false);
    expect(validate({ limit: 1 }), "worker_id is required").toBe(false);
  });

  it("takes token perms as known permission names or null", () => {
    const validate = body("createToken");
    expect(validate({ label: "ci", perms: null })).toBe(true);
    expect(validate({ label: "ci", perms: ["deploy", "read"], expires_at: "2030-01-01T00:00:00Z" })).toBe(true);
    expect(validate({ label: "ci", perms: ["root"] })).toBe(false);
    expect(validate({ label: "", perms: null })).toBe(false);
    expect(validate({ label: "ci" }), "perms is required (null for none)").toBe(false);
    expect(validate({ label: "ci", perms: null, expires_at: "tomorrow" })).toBe(false);
  });

  it("coerces wire strings of list queries and applies the documented defaults", () => {
    const validate = query("listInstances");
    const q: Record<string, unknown> = {
      limit: "50",
      children: "true",
      version: "0",
      created_after: "1767225600000",
      status: "failed,raised",
    };
    expect(validate(q), queryAjv().errorsText(validate.errors)).toBe(true);
    expect(q).toEqual({
      limit: 50,
      children: true,
      version: 0,
      created_after: 1767225600000,
      status: "failed,raised",
      sort: "created_at",
      order: "desc",
    });
  });

  it("refuses an unknown status, a limit under 1, a foreign sort key and an unknown filter", () => {
    const validate = query("listInstances");
    expect(validate({ status: "running,finished" })).toBe(false);
    expect(validate({ status: "running," })).toBe(false);
    expect(validate({ limit: "101" }), "a larger limit is clamped by the list, not refused").toBe(true);
    expect(validate({ limit: "0" })).toBe(false);
    expect(validate({ sort: "name" }), "instances sort only by created_at/updated_at").toBe(false);
    expect(validate({ staus: "running" })).toBe(false);
  });

  it("uses each list's sort whitelist and default", () => {
    const sortOf = (name: string) => (findAction(name).query!.properties as Record<string, JsonSchema>).sort;
    expect(sortOf("listDefinitions")).toMatchObject({ enum: ["created_at", "name", "version"], default: "created_at" });
    expect(sortOf("listChannels")).toMatchObject({ enum: ["name", "updated_at"], default: "name" });
    expect(sortOf("listInstances")).toMatchObject({ enum: ["created_at", "updated_at"], default: "created_at" });
    expect(sortOf("listInstanceLogs")).toMatchObject({ enum: ["created_at"], default: "created_at" });
    const orderOf = (name: string) => (findAction(name).query!.properties as Record<string, JsonSchema>).order.default;
    expect([
      orderOf("listDefinitions"),
      orderOf("listChannels"),
      orderOf("listInstances"),
      orderOf("listInstanceLogs"),
    ]).toEqual(["desc", "asc", "desc", "desc"]);
  });

  it("lets tick be called without a body", () => {
    expect(findAction("tick").bodyOptional).toBe(true);
    expect(body("tick")({})).toBe(true);
    expect(body("tick")({ advance_ms: -1 })).toBe(false);
  });
});

describe("response schemas", () => {
  const ajv = requestAjv();

  it("never let a token list item carry the secret", () => {
    const validate = ajv.compile(findAction("listTokens").responses[200].schema!);
    const item = {
      id: "t",
      label: "l",
      perms: null,
      scopes: null,
      created_at: "2026-01-01T00:00:00Z",
      last_used_at: null,
      expires_at: null,
      revoked_at: null,
    };
    expect(validate({ items: [item] })).toBe(true);
    expect(validate({ items: [{ ...item, token: "svc_sk_x" }] })).toBe(false);
  });

  it("requires parent_id on every instance row, null for roots", () => {
    const validate = ajv.compile(findAction("listInstances").responses[200].schema!);
    const row = {
      id: "i",
      process: "p",
      version: 1,
      status: "running",
      task: "a",
      retry_count: 0,
      created_at: "2026-01-01T00:00:00Z",
      updated_at: "2026-01-01T00:00:00Z",
      wake_at: null,
      root_id: "i",
      key: null,
      phase: "external",
    };
    const page = {
      size: 20,
      items_before: 0,
      items_after: 0,
      sort: "created_at",
      order: "desc",
      next_cursor: null,
      previous_cursor: null,
    };
    expect(validate({ items: [row], page })).toBe(false);
    expect(validate({ items: [{ ...row, parent_id: null }], page })).toBe(true);
  });

  it("answers health and readiness with the same body on 200 and 503", () => {
    const health = findAction("health");
    expect(health.responses[503].schema).toEqual(health.responses[200].schema);
    const readiness = findAction("readiness");
    expect(readiness.responses[503].schema).toEqual(readiness.responses[200].schema);
  });

  it("lets pause and cancel answer 200, 202 or 204 and resume 200 or 204", () => {
    expect(Object.keys(findAction("pauseInstance").responses)).toEqual(["200", "202", "204"]);
    expect(Object.keys(findAction("cancelInstance").responses)).toEqual(["200", "202", "204"]);
    expect(Object.keys(findAction("resumeInstance").responses)).toEqual(["200", "204"]);
  });
});
