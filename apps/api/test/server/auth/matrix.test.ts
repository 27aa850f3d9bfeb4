import { type ActionSpec, type Permission, registry } from "@baton/actions";
import { request, startServer, type TestServer, type SharedDatabase, sharedDatabase } from "@baton/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, bootstrapToken, jwtFlags, jwtSecretFile, mintJwt } from "../../support/auth-fixtures.js";

// The full permission matrix over every registry entry, for svc_sk_ tokens and for JWTs:
// a call is admitted (anything but 401/403: the probe's empty request may well be a 400,
// 404 or 501) exactly when one of the credential's permissions is listed by the entry or
// is admin; otherwise 403 naming what would admit it.

const PERMISSION_SETS: Permission[][] = [
  [],
  ["worker"],
  ["read"],
  ["operate"],
  ["deploy"],
  ["admin"],
  ["read", "operate"],
  ["worker", "deploy"],
];
const guarded = registry.filter((a) => a.permissions !== "public");
const label = (perms: readonly string[]) => (perms.length ? perms.join("+") : "no permissions");

let database: SharedDatabase;
let secretFile: ReturnType<typeof jwtSecretFile>;
let server: TestServer;
const credentials: Record<"token" | "jwt", Map<string, string>> = { token: new Map(), jwt: new Map() };

beforeAll(async () => {
  database = await sharedDatabase();
  secretFile = jwtSecretFile();
  const admin = await bootstrapToken(database, "matrix admin", "admin");
  server = await startServer({
    database: database.location,
    args: ["--auth", "token", "--poll", "0", ...jwtFlags(secretFile.path)],
  });
  for (const perms of PERMISSION_SETS) {
    const created = await request(
      server.url,
      "POST",
      "/api/tokens",
      { label: `matrix ${label(perms)}`, perms },
      bearer(admin),
    );
    if (created.status !== 200) throw new Error(`POST /api/tokens failed: ${created.status} ${created.text}`);
    credentials.token.set(label(perms), created.body.token);
    credentials.jwt.set(label(perms), await mintJwt({ sub: `person-${label(perms)}`, perms, expiresIn: 900 }));
  }
});

afterAll(async () => {
  await server?.stop();
  await database?.dispose();
  secretFile?.dispose();
});

function probePath(action: ActionSpec): string {
  const path = action.path.replace(/\{[^}]+\}/g, "auth-matrix-probe");
  return action.root ? path : `/api${path}`;
}

function probe(action: ActionSpec, headers: Record<string, string>) {
  const body = action.method === "get" ? undefined : {};
  return request(server.url, action.method.toUpperCase(), probePath(action), body, headers);
}

function admitting(action: ActionSpec): Permission[] {
  return [...new Set<Permission>([...(action.permissions as Permission[]), "admin"])];
}

// docs/auth.md "Permissions", written out by hand so the matrix below is checked
// against the specification and not only against the registry it iterates.
const SPEC_PERMISSIONS: Record<string, Permission[]> = {
  "PUT /definitions": ["deploy"],
  "GET /definitions": ["read"],
  "PUT /definitions/batch": ["deploy"],
  "POST /definitions/validate": ["read"],
  "POST /definitions/compat": ["read"],
  "GET /definitions/{name}/openapi.json": ["read"],
  "GET /definitions/{name}/docs": ["read"],
  "GET /channels": ["read"],
  "PUT /channels": ["deploy"],
  "DELETE /channels": ["deploy"],
  "POST /channels/promote": ["deploy"],
  "POST /channels/status": ["read"],
  "POST /instances": ["operate"],
  "GET /instances": ["read"],
  "GET /instances/{id}": ["read"],
  "GET /instances/{id}/detail": ["read"],
  "GET /instances/{id}/logs": ["read"],
  "POST /instances/{id}/pause": ["operate"],
  "POST /instances/{id}/resume": ["operate"],
  "POST /instances/{id}/cancel": ["operate"],
  "POST /instances/{id}/retry": ["operate"],
  "POST /instances/{id}/upgrade": ["deploy"],
  "GET /objects/{ref}": ["worker", "read"],
  "POST /external-tasks/claim": ["worker"],
  "POST /external-tasks/renew": ["worker"],
  "POST /external-tasks/release": ["worker"],
  "POST /external-tasks/resolve": ["worker"],
  "POST /external-tasks/resolve-batch": ["worker"],
  "POST /external-tasks/signal": ["worker"],
  "POST /tokens": ["admin"],
  "GET /tokens": ["admin"],
  "DELETE /tokens/{id}": ["admin"],
  "POST /tick": ["admin"],
  // Extension (docs/auth.md "Who am I"): any permission admits it.
  "GET /whoami": ["worker", "read", "operate", "deploy"],
  // Extensions (docs/api.md "Bulk verbs"): a bulk verb needs the permission of its single verb.
  "POST /instances/bulk/pause": ["operate"],
  "POST /instances/bulk/resume": ["operate"],
  "POST /instances/bulk/cancel": ["operate"],
  "POST /instances/bulk/retry": ["operate"],
  "POST /instances/bulk/upgrade": ["deploy"],
  // Extensions (docs/schedules.md): deploy shapes a schedule, operate steers it, read lists it.
  "PUT /schedules/{name}": ["deploy"],
  "DELETE /schedules/{name}": ["deploy"],
  "POST /schedules/{name}/pause": ["operate"],
  "POST /schedules/{name}/resume": ["operate"],
  "POST /schedules/{name}/trigger": ["operate"],
  "POST /schedules/{name}/backfill": ["operate"],
  // Extensions (docs/safe-change.md "Reset"): operate steers, as retry.
  "POST /instances/{id}/reset": ["operate"],
  "POST /instances/bulk/reset": ["operate"],
  // Extensions (docs/events.md): deploy changes subscriptions, read lists them and their deliveries.
  "PUT /subscriptions/{name}": ["deploy"],
  "DELETE /subscriptions/{name}": ["deploy"],
  "POST /subscriptions/{name}/rotate-secret": ["deploy"],
  "POST /subscriptions/{name}/resume": ["deploy"],
  "POST /subscriptions/{name}/redeliver": ["deploy"],
  "PUT /hooks/{name}": ["deploy"],
  "DELETE /hooks/{name}": ["deploy"],
};

describe("the registry drives the checks", () => {
  it("declares a permission list on every endpoint but the probes and the hook receiver", () => {
    // POST /hooks/{name}: the request's signature is its credential (docs/events.md "Receiving").
    expect(registry.filter((a) => a.permissions === "public").map((a) => a.path)).toEqual([
      "/hooks/{name}",
      "/healthz",
      "/livez",
      "/readyz",
    ]);
    expect(guarded.length).toBeGreaterThan(30);
  });

  it("admits exactly the documented permissions on every endpoint", () => {
    const effective = (perms: Permission[]) => [...new Set<Permission>([...perms, "admin"])].sort();
    const fromRegistry = Object.fromEntries(
      guarded.map((a) => [`${a.method.toUpperCase()} ${a.path}`, effective(a.permissions as Permission[])]),
    );
    // An endpoint the table does not list follows docs/auth.md's rules: a GET is read, anything else declares nothing (admin).
    const specFor = (endpoint: string): Permission[] =>
      SPEC_PERMISSIONS[endpoint] ?? (endpoint.startsWith("GET ") ? ["read"] : []);
    const fromSpec = Object.fromEntries(
      Object.keys(fromRegistry).map((endpoint) => [endpoint, effective(specFor(endpoint))]),
    );
    expect(Object.keys(fromRegistry), "every documented endpoint is in the registry").toEqual(
      expect.arrayContaining(Object.keys(SPEC_PERMISSIONS)),
    );
    expect(fromRegistry).toEqual(fromSpec);
  });

  it("states each endpoint's permissions and the bearer scheme in the served OpenAPI document", async () => {
    const doc = (await request(server.url, "GET", "/public/openapi.json")).body;
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: "http", scheme: "bearer" });
    for (const action of registry) {
      const operation = doc.paths[action.path]?.[action.method];
      expect(operation, `${action.method} ${action.path} in the document`).toBeDefined();
      if (action.permissions === "public") {
        expect(operation.security).toEqual([]);
      } else {
        expect(operation.security, action.name).toEqual([{ bearerAuth: [] }]);
        const stated: string[] = operation["x-baton-permissions"];
        // Whether the document also spells out the implied admin is the builder's choice; nothing else may differ.
        expect(stated, action.name).toEqual(expect.arrayContaining(action.permissions as string[]));
        expect(admitting(action), action.name).toEqual(expect.arrayContaining(stated));
        expect(Object.keys(operation.responses), `${action.name} documents 401 and 403`).toEqual(
          expect.arrayContaining(["401", "403"]),
        );
      }
    }
  });
});

describe("without a credential", () => {
  it.each(guarded.map((a) => [a.name, a] as const))(
    "%s answers 401 unauthenticated with WWW-Authenticate: Bearer",
    async (_name, action) => {
      const attempts: Record<string, string>[] = [
        {},
        { authorization: "Bearer not-a-credential" },
        { authorization: "Basic YWRtaW46YWRtaW4=" },
      ];
      for (const headers of attempts) {
        const res = await probe(action, headers);
        expect(res.status, `${JSON.stringify(headers)} → ${res.text}`).toBe(401);
        expect(res.body.code).toBe("unauthenticated");
        expect(res.headers.get("www-authenticate")).toBe("Bearer");
      }
    },
  );

  it("still serves the probes (and their /api aliases) and /public/*", async () => {
    for (const probe of ["/healthz", "/livez", "/readyz"]) {
      expect((await request(server.url, "GET", probe)).status, probe).toBe(200);
      expect((await request(server.url, "GET", `/api${probe}`)).status, `no credential needed on /api${probe}`).toBe(
        200,
      );
    }
    expect((await request(server.url, "GET", "/readyz")).body.status).toBe("ready");
    expect((await request(server.url, "GET", "/livez")).body.status).toBe("ok");
    expect((await request(server.url, "GET", "/public/openapi.json")).status).toBe(200);
    expect((await request(server.url, "GET", "/public/docs")).status).toBe(200);
  });
});

describe.each(["token", "jwt"] as const)("with a %s", (kind) => {
  it.each(guarded.map((a) => [`${a.method.toUpperCase()} ${a.path}`, a] as const))(
    "%s admits exactly the listed permissions and admin",
    async (_name, action) => {
      const wrong: string[] = [];
      for (const perms of PERMISSION_SETS) {
        const res = await probe(action, bearer(credentials[kind].get(label(perms))!));
        const expected = admitting(action).some((p) => perms.includes(p));
        if (expected && (res.status === 401 || res.status === 403))
          wrong.push(`${label(perms)}: refused with ${res.status} ${res.text}`);
        if (!expected) {
          if (res.status !== 403) wrong.push(`${label(perms)}: expected 403, got ${res.status} ${res.text}`);
          else if (res.body.code !== "forbidden" || !admitting(action).every((p) => res.body.error.includes(p))) {
            wrong.push(
              `${label(perms)}: the 403 must be code forbidden and name ${admitting(action).join(", ")}: ${res.text}`,
            );
          }
        }
      }
      expect(wrong, "every permission set must get its expected answer").toEqual([]);
    },
  );
});
