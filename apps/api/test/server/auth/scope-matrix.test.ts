// Over 300 lines on purpose: one table of every registry operation's in-scope, out-of-scope and
// missing request, read together with the expectations per scope rule that follow it.
//
// The scope matrix (docs/auth.md "Scopes"): every registry operation × {a credential without
// scopes, a scoped credential on its own process, the same credential on another team's
// process} × each permission, for svc_sk_ tokens and for JWTs, against one real server. Out of
// scope, each rule answers as documented (404 exactly as for a missing target, 403 for a write,
// a list without the other team's rows), and no answer to a scoped credential carries the other
// team's process name, instance ids, object ref, schedule or token.
import { type ActionSpec, type Permission, registry } from "@baton/actions";
import { request, sharedDatabase, type SharedDatabase, startServer, type TestServer } from "@baton/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { askOnce } from "../../support/definitions.js";
import { bearer, bootstrapToken, jwtFlags, jwtSecretFile, mintJwt } from "../../support/auth-fixtures.js";

const IN = "orders-shop";
const OUT = "billing-ledger";
const SCOPES = ["orders-*"];
const PERMS: Permission[] = ["worker", "read", "operate", "deploy", "admin"];
const MISSING_ID = "01900000-0000-7000-8000-000000000000";

const definition = (name: string) =>
  askOnce(name, {}, { input_schema: { type: "object", properties: { blob: { type: "string" } } } });

/** What one side of the matrix names: its process, instances, object, schedule, claim tokens, token. */
interface Side {
  process: string;
  read: string;
  verb: string;
  signal: string;
  ref: string;
  schedule: string;
  claims: string[];
  tokenId: string;
}

let database: SharedDatabase;
let secretFile: ReturnType<typeof jwtSecretFile>;
let server: TestServer;
let admin: string;
const side: Record<"in" | "out", Side> = {} as never;
const credentials = new Map<string, string>();

const call = (method: string, path: string, body: unknown, credential: string) =>
  request(server.url, method, path, body, bearer(credential));

async function ok(method: string, path: string, body?: unknown) {
  const res = await call(method, path, body, admin);
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${res.text}`);
  return res.body;
}

async function prepare(which: "in" | "out", process: string): Promise<Side> {
  await ok("PUT", "/api/definitions/batch", { definitions: [definition(process)], channel: "staging" });
  const started: string[] = [];
  // The first two park first, so the set-up claim (FIFO) takes them.
  for (const tag of ["claim-a", "claim-b", "read", "verb", "signal"])
    started.push(
      (await ok("POST", "/api/instances", { process, input: { blob: `${which}-${tag}-${"x".repeat(200)}` } })).id,
    );
  await ok("POST", "/api/tick", {});
  const detail = await ok("GET", `/api/instances/${started[2]}/detail`);
  const ref = detail.objects.find((o: { path: string[] }) => o.path.join(".") === "state.input")?.ref;
  if (!ref) throw new Error(`no object for ${process}: ${JSON.stringify(detail.objects)}`);
  const schedule = `${which === "in" ? "orders" : "billing"}-nightly`;
  await ok("PUT", `/api/schedules/${schedule}`, { process, every: "1h" });
  // Held for the whole file (a suite on a loaded machine takes minutes): only a scope leak may lose them.
  const claimed = await ok("POST", "/api/external-tasks/claim", {
    worker_id: `setup-${which}`,
    limit: 2,
    process,
    lease_ms: 600_000,
  });
  const token = await ok("POST", "/api/tokens", { label: `team ${process}`, perms: ["read"], scopes: [process] });
  return {
    process,
    read: started[2]!,
    verb: started[3]!,
    signal: started[4]!,
    ref,
    schedule,
    claims: claimed.items.map((i: { token: string }) => i.token),
    tokenId: token.id,
  };
}

beforeAll(async () => {
  database = await sharedDatabase();
  secretFile = jwtSecretFile();
  admin = await bootstrapToken(database, "scope matrix admin", "admin");
  server = await startServer({
    database: database.location,
    args: ["--auth", "token", "--poll", "0", "--object-threshold", "64", ...jwtFlags(secretFile.path)],
  });
  side.in = await prepare("in", IN);
  side.out = await prepare("out", OUT);
  await ok("PUT", "/api/channels", { name: IN, channel: "prod", version: 1 });
  for (const perm of PERMS) {
    for (const scoped of [false, true]) {
      const body = { label: `matrix ${perm}${scoped ? " scoped" : ""}`, perms: [perm], scopes: scoped ? SCOPES : null };
      credentials.set(`token ${perm} ${scoped}`, (await ok("POST", "/api/tokens", body)).token);
      const claims = scoped ? { scopes: SCOPES } : {};
      credentials.set(
        `jwt ${perm} ${scoped}`,
        await mintJwt({ sub: `p-${perm}-${scoped}`, perms: [perm], claims, expiresIn: 900 }),
      );
    }
  }
}, 180_000);

afterAll(async () => {
  await server?.stop();
  await database?.dispose();
  secretFile?.dispose();
});

type Target = "in" | "out" | "missing";
interface Req {
  method: string;
  path: string;
  body?: unknown;
}

/** The request of `action` aimed at `target`: its own process's thing, the other team's, or one that does not exist. */
function requestFor(action: ActionSpec, target: Target): Req {
  const s = target === "missing" ? undefined : side[target];
  const process = s?.process ?? "orders-none";
  const instance = (pick: (x: Side) => string) => (s ? pick(s) : MISSING_ID);
  const path = (p: string) => `/api${p}`;
  const method = action.method.toUpperCase();
  switch (action.name) {
    case "getInstance":
      return { method, path: path(`/instances/${instance((x) => x.read)}`) };
    case "getInstanceDetail":
      return { method, path: path(`/instances/${instance((x) => x.read)}/detail`) };
    case "listInstanceLogs":
      return { method, path: path(`/instances/${instance((x) => x.read)}/logs`) };
    case "upgradeInstance":
      return {
        method,
        path: path(`/instances/${instance((x) => x.verb)}/upgrade`),
        body: { from_version: 1, to_version: 1 },
      };
    case "getDefinition":
      return { method, path: path(`/definitions/${process}/versions/1`) };
    case "getProcessOpenApi":
      return { method, path: path(`/definitions/${process}/openapi.json`) };
    case "getProcessDocs":
      return { method, path: path(`/definitions/${process}/docs`) };
    case "putDefinition":
      return { method, path: path("/definitions"), body: definition(process) };
    case "putDefinitionBatch":
      return {
        method,
        path: path("/definitions/batch"),
        body: {
          definitions: target === "in" ? [definition(IN)] : [definition(IN), definition(process)],
          channel: "scratch",
        },
      };
    case "validateDefinitions":
      return { method, path: path("/definitions/validate"), body: [definition(process)] };
    case "compatDefinitions":
      return {
        method,
        path: path("/definitions/compat"),
        body: { from: { versions: { [process]: 1 } }, to: { versions: { [process]: 1 } } },
      };
    case "setChannel":
      return { method, path: path("/channels"), body: { name: process, channel: "scratch", version: 1 } };
    case "deleteChannel":
      return { method, path: path("/channels"), body: { name: process, channel: "scratch-gone" } };
    case "promoteChannel":
      return { method, path: path("/channels/promote"), body: { from: "staging", to: "prod", process } };
    case "channelStatus":
      return { method, path: path("/channels/status"), body: { channel: "staging" } };
    case "startInstance":
      return { method, path: path("/instances"), body: { process } };
    case "listInstances":
      return { method, path: path("/instances?children=true&limit=100") };
    case "countInstances":
      return { method, path: path("/instances/counts?by=process&children=true") };
    case "getObject":
      return { method, path: path(`/objects/${s ? s.ref : "0".repeat(64)}`) };
    case "claimExternalTasks":
      return { method, path: path("/external-tasks/claim"), body: { worker_id: "matrix", limit: 100 } };
    case "renewExternalTasks":
      // The worker that holds it: without scopes, this renew would be `renewed`.
      return {
        method,
        path: path("/external-tasks/renew"),
        body: { worker_id: `setup-${target}`, tokens: [s ? s.claims[0] : "ext_unknown"] },
      };
    case "releaseExternalTask":
      return { method, path: path("/external-tasks/release"), body: { token: s ? s.claims[0] : "ext_unknown" } };
    case "resolveExternalTask":
      return {
        method,
        path: path("/external-tasks/resolve"),
        body: { token: s ? s.claims[1] : "ext_unknown", result: { n: 1 } },
      };
    case "resolveExternalTaskBatch":
      return {
        method,
        path: path("/external-tasks/resolve-batch"),
        body: { items: [{ token: s ? s.claims[1] : "ext_unknown", result: { n: 1 } }] },
      };
    case "signalExternalTask":
      return {
        method,
        path: path("/external-tasks/signal"),
        body: { instance_id: instance((x) => x.signal), task: "q", result: { n: 1 } },
      };
    case "createToken":
      return { method, path: path("/tokens"), body: { label: "minted", perms: ["read"], scopes: [process] } };
    case "revokeToken":
      return { method, path: path(`/tokens/${s ? s.tokenId : MISSING_ID}`) };
    case "deleteSchedule":
      // Its own is one that does not exist: the other rows of the table still use orders-nightly.
      return { method, path: path(`/schedules/${target === "out" ? side.out.schedule : "orders-temp"}`) };
    case "putSchedule":
      return { method, path: path(`/schedules/${s ? s.schedule : "orders-none"}`), body: { process, every: "2h" } };
    case "backfillSchedule":
      return {
        method,
        path: path(`/schedules/${s ? s.schedule : "orders-none"}/backfill`),
        body: { from: "2026-01-01T00:00:00Z", to: "2026-01-01T01:00:00Z" },
      };
    case "tick":
      return { method, path: path("/tick"), body: {} };
    case "resetInstance":
      return { method, path: path(`/instances/${instance((x) => x.verb)}/reset`), body: { to_task: "q" } };
  }
  const rule = action.scope;
  if (rule.by === "instance")
    return {
      method,
      path: path(
        action.path.replace(
          `{${rule.param}}`,
          instance((x) => x.verb),
        ),
      ),
      body: method === "GET" ? undefined : {},
    };
  if (rule.by === "schedule")
    return {
      method,
      path: path(action.path.replace(`{${rule.param}}`, s ? s.schedule : "orders-none")),
      body: method === "GET" ? undefined : {},
    };
  if (rule.by === "path-process") return { method, path: path(action.path.replace(`{${rule.param}}`, process)) };
  if (rule.by === "list" && action.path.startsWith("/instances/bulk/"))
    return {
      method,
      path: path(action.path),
      body: {
        dry_run: true,
        ...(action.path.endsWith("upgrade") ? { from_version: 1, to_version: 1 } : {}),
        ...(action.path.endsWith("reset") ? { to_task: "q" } : {}),
      },
    };
  // A rule that names a process or handle needs its real one above; the others reach no single target.
  if (action.path.includes("{") && !["unscoped", "none", "list"].includes(rule.by))
    throw new Error(`${action.name}: give its requests in requestFor (scope rule ${rule.by})`);
  const probe = action.path.replace(/\{[^}]+\}/g, "matrix-probe");
  const base = action.root ? probe : path(probe);
  return { method, path: base, body: method === "GET" ? undefined : {} };
}

const send = (req: Req, credential: string) => call(req.method, req.path, req.body, credential);

const admits = (action: ActionSpec, perm: Permission) =>
  action.permissions === "public" || perm === "admin" || action.permissions.includes(perm);

/** What a scoped answer may never carry: the other team's names and handles (unless the caller sent them). */
function leaks(text: string, req: Req): string[] {
  const sent = `${req.path} ${JSON.stringify(req.body ?? null)}`;
  const out = side.out;
  const terms = [out.process, out.read, out.verb, out.signal, out.ref, out.schedule, out.tokenId, ...out.claims];
  return terms.filter((t) => text.includes(t) && !sent.includes(t));
}

/** The out-of-scope answer of a scoped caller admitted by its permission, checked against the rule. */
async function checkOutOfScope(action: ActionSpec, credential: string, problems: string[]) {
  const req = requestFor(action, "out");
  const res = await send(req, credential);
  const found = leaks(res.text, req);
  if (found.length) problems.push(`${action.name}: the answer carries ${found.join(", ")}: ${res.text}`);
  const rule = action.scope.by;
  const sameAsMissing = async () => {
    const missing = await send(requestFor(action, "missing"), credential);
    const o = side.out;
    const names = [
      o.process,
      o.read,
      o.verb,
      o.signal,
      o.ref,
      o.schedule,
      o.tokenId,
      MISSING_ID,
      "orders-none",
      "0".repeat(64),
    ];
    const normal = (t: string) => names.reduce((text, name) => text.replaceAll(name, "<x>"), t);
    if (res.status !== missing.status || normal(res.body?.error ?? "") !== normal(missing.body?.error ?? ""))
      problems.push(
        `${action.name}: out of scope ${res.status} ${res.text} differs from missing ${missing.status} ${missing.text}`,
      );
  };
  if (rule === "unscoped") {
    if (res.status !== 403) problems.push(`${action.name}: expected 403, got ${res.status} ${res.text}`);
  } else if (rule === "instance" || rule === "path-process" || rule === "object") {
    await sameAsMissing();
    if (res.status !== 404) problems.push(`${action.name}: expected 404, got ${res.status} ${res.text}`);
  } else if (rule === "schedule") {
    if (action.method === "put") {
      if (res.status !== 409) problems.push(`${action.name}: expected 409 (name taken), got ${res.status} ${res.text}`);
    } else if (action.method === "delete") {
      if (res.status !== 200 || res.body.deleted !== false)
        problems.push(`${action.name}: expected deleted false, got ${res.text}`);
    } else await sameAsMissing();
  } else if (rule === "body-process" || rule === "body-processes") {
    if (res.status !== 403 || res.body.code !== "forbidden")
      problems.push(`${action.name}: expected 403, got ${res.status} ${res.text}`);
  } else if (rule === "tokens") {
    if (action.name === "createToken" && res.status !== 403)
      problems.push(`createToken: expected 403, got ${res.text}`);
    if (action.name === "revokeToken") await sameAsMissing();
  } else if (rule === "external-task") {
    if (action.name === "renewExternalTasks" && !(res.status === 200 && res.body.lost.length === 1))
      problems.push(`renew: an out-of-scope token must be lost: ${res.text}`);
    if (action.name === "signalExternalTask") await sameAsMissing();
    if (action.name === "resolveExternalTask" || action.name === "releaseExternalTask") {
      const missing = await send(requestFor(action, "missing"), credential);
      if (res.status !== missing.status || res.body.error !== missing.body.error)
        problems.push(`${action.name}: ${res.text} differs from an unknown token's ${missing.text}`);
    }
    if (action.name === "resolveExternalTaskBatch" && res.body.items?.[0]?.code !== "not_found")
      problems.push(`resolve-batch: an out-of-scope token must be unknown: ${res.text}`);
  } else if (rule === "list") {
    if (res.status !== 200) problems.push(`${action.name}: expected 200, got ${res.status} ${res.text}`);
  }
}

const OWN_LISTS = ["listDefinitions", "listChannels", "listInstances", "countInstances", "listSchedules"];

/**
 * Actions whose credential is a request signature, not the bearer (docs/events.md): every
 * caller, scoped or not, gets the one 401 an unsigned request gets, whatever its permissions.
 */
const SIGNED = new Set(["receiveHook"]);

async function checkSigned(action: ActionSpec, credential: string, problems: string[]) {
  const bare = requestFor(action, "missing");
  const unsigned = await request(server.url, bare.method, bare.path, bare.body, {});
  for (const target of ["in", "out"] as const) {
    const res = await send(requestFor(action, target), credential);
    if (res.status !== 401 || res.text !== unsigned.text)
      problems.push(`${action.name}: expected the unsigned answer ${unsigned.text}, got ${res.status} ${res.text}`);
  }
}

describe.each(["token", "jwt"] as const)("scoped %s", (kind) => {
  it.each(registry.map((a) => [a.name, a] as const))(
    "%s: own process as without scopes, another's as documented",
    async (_name, action) => {
      const problems: string[] = [];
      for (const perm of PERMS) {
        const credential = credentials.get(`${kind} ${perm} true`)!;
        if (SIGNED.has(action.name)) {
          await checkSigned(action, credential, problems);
          continue;
        }
        const inReq = requestFor(action, "in");
        const own = await send(inReq, credential);
        const found = leaks(own.text, inReq);
        if (found.length) problems.push(`${perm} in scope: carries ${found.join(", ")}: ${own.text}`);
        if (!admits(action, perm)) {
          if (own.status !== 403) problems.push(`${perm}: expected 403 without the permission, got ${own.status}`);
          continue;
        }
        if (action.scope.by === "unscoped") {
          if (own.status !== 403)
            problems.push(`${perm}: a scoped credential must get 403 here, got ${own.status} ${own.text}`);
          continue;
        }
        if (own.status === 401 || own.status === 403 || (own.status === 404 && action.scope.by !== "external-task"))
          problems.push(`${perm} in scope: refused with ${own.status} ${own.text}`);
        if (OWN_LISTS.includes(action.name) && !own.text.includes(IN))
          problems.push(`${perm}: its own ${IN} is not listed: ${own.text}`);
        await checkOutOfScope(action, credential, problems);
      }
      expect(problems).toEqual([]);
    },
  );
});

describe("the other team's work after every scoped call", () => {
  it("is untouched: instances running, pointers, schedules and tokens as they were", async () => {
    const verb = await ok("GET", `/api/instances/${side.out.verb}`);
    expect(verb.status).toBe("running");
    const channels = await ok("GET", `/api/channels?name=${OUT}`);
    expect(channels.items.map((c: { channel: string }) => c.channel)).toEqual(["staging"]);
    expect((await ok("GET", `/api/schedules/${side.out.schedule}`)).every).toBe("1h");
    const tokens = await ok("GET", "/api/tokens");
    expect(tokens.items.find((t: { id: string }) => t.id === side.out.tokenId).revoked_at).toBeNull();
    const renew = await ok("POST", "/api/external-tasks/renew", { worker_id: "setup-out", tokens: side.out.claims });
    expect(renew.renewed, "the other team's claims are still held").toEqual(side.out.claims);
  });
});

// The JWT without scopes is the permission matrix's (matrix.test.ts); here the token stands for both.
describe.each(["token"] as const)("%s without scopes", (kind) => {
  it.each(registry.map((a) => [a.name, a] as const))(
    "%s reaches every process, as before scopes",
    async (_name, action) => {
      const problems: string[] = [];
      for (const perm of PERMS) {
        const credential = credentials.get(`${kind} ${perm} false`)!;
        if (SIGNED.has(action.name)) {
          await checkSigned(action, credential, problems);
          continue;
        }
        // Reads go to the other team's things; writes to the caller's own (so they leave the other team's alone).
        const req = requestFor(action, action.method === "get" ? "out" : "in");
        const res = await send(req, credential);
        const admitted = admits(action, perm);
        if (admitted && (res.status === 401 || res.status === 403))
          problems.push(`${perm}: refused ${res.status} ${res.text}`);
        const named = ["instance", "path-process", "schedule", "object"].includes(action.scope.by);
        if (admitted && named && action.method === "get" && res.status === 404)
          problems.push(`${perm}: 404 ${res.text}`);
        if (!admitted && res.status !== 403) problems.push(`${perm}: expected 403, got ${res.status}`);
      }
      expect(problems).toEqual([]);
    },
  );
});
