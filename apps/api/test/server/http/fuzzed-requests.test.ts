// Fuzzed requests (docs/limits.md#fuzzing): requests generated from the registry's schemas
// (params, query, body), valid and mutated, on every endpoint of a real server, and generated
// expressions and definitions to POST /definitions/validate. Asserts no 5xx, every error body
// well-formed ({code, error, fields?}) with the status its ApiCode has, and /healthz answering
// throughout. Bounded: a fixed number of runs per endpoint (about a minute on CI, PGlite).
import { API_CODE_STATUS, type ActionSpec, type JsonSchema, registry } from "@baton/actions";
import { client, type HealthPoll, pollHealth, request, startServer, type TestServer } from "@baton/testkit";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

let server: TestServer;
let api: ReturnType<typeof client>;
let health: HealthPoll | undefined;

beforeAll(async () => {
  server = await startServer({ args: ["--poll", "100", "--max-body", "262144"] });
  api = client(server.url);
  await api.put("/api/definitions", {
    name: "fz",
    input_schema: { type: "object", properties: { n: { type: "integer" } } },
    tasks: [{ id: "wait", action: { type: "external" } }],
  });
  await api.post("/api/instances", { process: "fz", input: { n: 1 } });
  // /healthz answers throughout (a generous timeout; no timing assertion).
  health = pollHealth(server.url, 250);
}, 120_000);

afterAll(async () => {
  await health?.stop();
  await server?.stop();
});

/** An arbitrary value matching `schema` (the subset of JSON Schema the registry uses). */
function matching(schema: JsonSchema | undefined, depth = 0): fc.Arbitrary<unknown> {
  if (schema === undefined || depth > 4) return fc.jsonValue({ maxDepth: 2 });
  if ("const" in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
  for (const key of ["oneOf", "anyOf"]) {
    const options = schema[key] as JsonSchema[] | undefined;
    if (Array.isArray(options) && options.length > 0) return fc.oneof(...options.map((o) => matching(o, depth + 1)));
  }
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case "object": {
      const props = (schema.properties ?? {}) as Record<string, JsonSchema>;
      const required = new Set((schema.required ?? []) as string[]);
      const model: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [k, v] of Object.entries(props)) model[k] = matching(v, depth + 1);
      return fc.record(model, { requiredKeys: [...required].filter((k) => k in model) });
    }
    case "array":
      return fc.array(matching(schema.items as JsonSchema | undefined, depth + 1), { maxLength: 4 });
    case "integer":
      return fc.integer({
        min: typeof schema.minimum === "number" ? Math.max(schema.minimum, -1e9) : -1000,
        max: typeof schema.maximum === "number" ? Math.min(schema.maximum, 1e9) : 1000,
      });
    case "number":
      return fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e6, max: 1e6 });
    case "boolean":
      return fc.boolean();
    case "string":
      return fc.oneof(fc.string({ maxLength: 20 }), fc.uuid(), fc.constant("fz"), fc.constant("2026-01-01T00:00:00Z"));
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

/** A value that is probably wrong: another type, an unknown key, a hostile string. */
const hostile: fc.Arbitrary<unknown> = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.constantFrom(
    "\u0000",
    "__proto__",
    "a".repeat(5000),
    -1,
    2 ** 53,
    1e308,
    "1e400",
    "NaN",
    { __proto__: 1 },
    [],
    null,
    "../../etc/passwd",
    "%00",
    "$: 1/0",
  ),
);

function mutate(value: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> {
  return fc.tuple(value, fc.string({ maxLength: 12 }), hostile, fc.nat(3)).map(([v, key, bad, how]) => {
    if (how === 0 || v === null || typeof v !== "object" || Array.isArray(v)) return bad;
    const copy: Record<string, unknown> = { ...(v as Record<string, unknown>) };
    const keys = Object.keys(copy);
    if (how === 1) copy[key] = bad;
    else if (how === 2 && keys.length > 0) copy[keys[0]] = bad;
    else if (keys.length > 0) delete copy[keys[keys.length - 1]];
    return copy;
  });
}

function pathOf(action: ActionSpec, params: Record<string, unknown>): string {
  return `/api${action.path.replace(/\{(\w+)\}/g, (_, name) => encodeURIComponent(String(params[name] ?? "x")))}`;
}

function queryOf(query: unknown): string {
  if (query === null || typeof query !== "object" || Array.isArray(query)) return "";
  const search = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) search.append(k, typeof v === "string" ? v : JSON.stringify(v));
  const text = search.toString();
  return text ? `?${text}` : "";
}

const fuzzed = registry.filter((a) => a.name !== "health" && a.name !== "metrics");

async function send(action: ActionSpec, params: unknown, query: unknown, body: unknown): Promise<void> {
  const p = (params !== null && typeof params === "object" ? params : {}) as Record<string, unknown>;
  if (body !== null && typeof body === "object" && !Array.isArray(body) && "wait_ms" in body) {
    // A long poll only makes the run slower; its range is checked by http/request-edges.test.ts.
    delete (body as Record<string, unknown>).wait_ms;
  }
  const url = pathOf(action, p) + queryOf(query);
  const res = await request(server.url, action.method.toUpperCase(), url, action.method === "get" ? undefined : body);
  const where = `${action.method.toUpperCase()} ${url} ${JSON.stringify(body)?.slice(0, 300)}`;
  expect(res.status, `${where} → ${res.status} ${res.text.slice(0, 300)}`).toBeLessThan(500);
  if (res.status >= 400) {
    const b = res.body;
    expect(typeof b?.code, `${where}: error body ${res.text.slice(0, 200)}`).toBe("string");
    expect(typeof b.error, where).toBe("string");
    expect(b.error.length, where).toBeGreaterThan(0);
    // 413 is `invalid` with its own status (an over-size body; docs/api.md "Errors").
    if (res.status !== 413) expect(API_CODE_STATUS[b.code as keyof typeof API_CODE_STATUS], where).toBe(res.status);
    else expect(b.code).toBe("invalid");
    if (b.fields !== undefined) {
      expect(Array.isArray(b.fields), where).toBe(true);
      for (const f of b.fields) {
        expect(typeof f.path, where).toBe("string");
        expect(typeof f.message, where).toBe("string");
      }
    }
  }
}

describe("fuzzed requests on every endpoint", () => {
  for (const action of fuzzed) {
    it(`${action.method.toUpperCase()} ${action.path} (${action.name}): valid and mutated requests never answer 5xx`, async () => {
      const params = matching(action.params);
      const query = matching(action.query ?? { type: "object" });
      const body = matching(action.body ?? { type: "object" });
      await fc.assert(
        fc.asyncProperty(params, query, body, (p, q, b) => send(action, p, q, b)),
        { numRuns: 40, seed: 12 },
      );
      await fc.assert(
        fc.asyncProperty(fc.oneof(params, mutate(params)), mutate(query), mutate(body), (p, q, b) =>
          send(action, p, q, b),
        ),
        { numRuns: 40, seed: 1212 },
      );
    }, 60_000);
  }
});

/** Expressions from a small grammar, well-formed or not. */
const expression: fc.Arbitrary<string> = fc.letrec((tie) => ({
  expr: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.constantFrom(
      "input.n",
      "input",
      "outputs",
      "1",
      "0",
      "-1",
      "1e308",
      "'s'",
      "true",
      "null",
      "[]",
      "{}",
      "config",
    ),
    fc.integer().map(String),
    fc
      .tuple(tie("expr"), fc.constantFrom("+", "-", "*", "/", "%", "==", "<", "&&", "||", "??"), tie("expr"))
      .map(([a, op, b]) => `(${a} ${op} ${b})`),
    fc
      .tuple(
        fc.constantFrom("len", "join", "lower", "upper", "contains", "now_ms", "nope"),
        fc.array(tie("expr"), { maxLength: 3 }),
      )
      .map(([f, args]) => `${f}(${(args as string[]).join(", ")})`),
    fc.tuple(tie("expr"), tie("expr")).map(([a, b]) => `map(${a}, x => ${b})`),
    fc.tuple(tie("expr"), tie("expr")).map(([a, b]) => `[${a}, ${b}]`),
    fc.tuple(fc.string({ maxLength: 6 }), tie("expr")).map(([k, v]) => `{${JSON.stringify(k)}: ${v}}`),
    fc.string({ maxLength: 30 }),
  ),
})).expr as fc.Arbitrary<string>;

async function validate(body: unknown): Promise<void> {
  const res = await request(server.url, "POST", "/api/definitions/validate", body);
  const where = `validate ${JSON.stringify(body).slice(0, 400)}`;
  expect(res.status, `${where} → ${res.status} ${res.text.slice(0, 300)}`).toBeLessThan(500);
  if (res.status >= 400) {
    expect(typeof res.body?.code, where).toBe("string");
    expect(API_CODE_STATUS[res.body.code as keyof typeof API_CODE_STATUS], where).toBe(res.status);
  }
}

describe("fuzzed definitions to POST /definitions/validate", () => {
  it("checks generated expressions in outputs, switches and templates without a 5xx", async () => {
    await fc.assert(
      fc.asyncProperty(expression, expression, (a, b) =>
        validate({
          name: "fx",
          input_schema: { type: "object", properties: { n: { type: "integer" } } },
          tasks: [
            { id: "a", output: { v: `$: ${a}`, t: `x \${${b}} y` }, switch: [{ when: `$: ${b}`, goto: "b" }, "b"] },
            { id: "b", action: { type: "fetch", url: `https://example.com/\${${a}}` } },
          ],
        }),
      ),
      { numRuns: 400, seed: 7 },
    );
  }, 90_000);

  it("checks generated and mutated definitions without a 5xx", async () => {
    const task = fc.record({
      id: fc.oneof(fc.constantFrom("a", "b", "c"), fc.string({ maxLength: 5 })),
      action: fc.oneof(
        fc.constant({ type: "external" }),
        fc.record({
          type: fc.constant("delay"),
          for: fc.oneof(fc.constantFrom("1s", "36500d", "99999d", "$: 1"), fc.string()),
        }),
        fc.record({
          type: fc.constantFrom("child", "child_list"),
          name: fc.constantFrom("fz", "fx", "nope"),
          over: fc.constant("$: []"),
        }),
        hostile,
      ),
      on_error: fc.option(
        fc.array(fc.record({ code: fc.array(fc.string({ maxLength: 20 }), { maxLength: 3 }), retry: fc.nat(5) }), {
          maxLength: 2,
        }),
        { nil: undefined },
      ),
    });
    const definition = fc.record({ name: fc.constantFrom("fx", "fy"), tasks: fc.array(task, { maxLength: 5 }) });
    await fc.assert(
      fc.asyncProperty(fc.oneof(definition, mutate(definition), hostile), (d) => validate(d)),
      { numRuns: 400, seed: 8 },
    );
  }, 90_000);
});

describe("regressions the fuzz suite found", () => {
  it("refuses a NUL in a string stored as text (a channel name) with 400 invalid, not 500", async () => {
    const res = await request(server.url, "POST", "/api/channels/status", { channel: "\u0000" });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("invalid");
    expect(res.body.error).toContain("U+0000");
  });
});

describe("the server throughout", () => {
  it("answered every /healthz probe", () => {
    expect(health!.failures).toEqual([]);
  });
});
