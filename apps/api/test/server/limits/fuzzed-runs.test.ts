// Fuzzed runs (docs/limits.md#fuzzing): generated expressions are not only checked but run
// (deployed, started, settled), with numbers of huge exponents and many digits (`1e10000000 % 7`
// must not hold the event loop); and generated `$defs` — shared schemas naming each other through
// `$ref`, `anyOf`, `properties` and `items`, up to 40 definitions each naming the next twice, and
// `$ref` cycles — are checked and started. Asserts no 5xx, every instance settles, and /healthz
// answers throughout. Fixed seeds and run counts, so a failure reproduces and the time is bounded.
import { client, type HealthPoll, pollHealth, request, settled, startServer, type TestServer } from "@baton/testkit";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

let server: TestServer;
let api: ReturnType<typeof client>;
let health: HealthPoll | undefined;

beforeAll(async () => {
  server = await startServer({ args: ["--poll", "50"] });
  api = client(server.url);
  health = pollHealth(server.url, 250);
}, 120_000);

afterAll(async () => {
  await health?.stop();
  await server?.stop();
});

const NUMBERS = ["input.n", "1e10000000", "-1e10000000", "7", "0.3", "1e-10000000", `0.${"7".repeat(3000)}`, "3"];
const number: fc.Arbitrary<string> = fc.letrec((tie) => ({
  expr: fc.oneof(
    { depthSize: "small" },
    fc.constantFrom(...NUMBERS),
    fc
      .tuple(tie("expr"), fc.constantFrom("+", "-", "*", "/", "%"), tie("expr"))
      .map(([a, op, b]) => `(${a} ${op} ${b})`),
  ),
})).expr as fc.Arbitrary<string>;

const expression: fc.Arbitrary<string> = fc.oneof(
  number.map((n) => `$: ${n}`),
  number.map((n) => `\${${n}}`),
  number.map((n) => `$: join([${n}, ${n}], '-')`),
  fc.tuple(number, number).map(([a, b]) => `$: ${a} < ${b}`),
  number.map((n) => `$: len(join(map([1, 2, 3], x => ${n}), ''))`),
);

describe("generated expressions, run", () => {
  it("over huge and long numbers settle every instance without a 5xx", async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(expression, async (e) => {
        const name = `run${n++}`;
        const put = await request(server.url, "PUT", "/api/definitions", {
          name,
          input_schema: { type: "object", properties: { n: { type: "number" } }, required: ["n"] },
          tasks: [{ id: "t", output: { v: e } }],
        });
        expect(put.status, `${e} → ${put.text}`).toBeLessThan(500);
        if (put.status !== 200) return;
        const start = await request(server.url, "POST", "/api/instances", { process: name, input: { n: 1.5 } });
        expect(start.status, `${e} → ${start.text}`).toBe(200);
        const end = await settled(api, start.body.id);
        expect(["completed", "failed"], `${e} → ${end.status} ${end.error_message}`).toContain(end.status);
        if (end.status === "failed") expect(end.error_code, e).toMatch(/^engine\.(limit|expression)$/);
      }),
      { numRuns: 60, seed: 1207 },
    );
  }, 240_000);
});

/** A schema that may name $defs d0…d4 through $ref, anyOf, properties and items. */
const schema: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  s: fc.oneof(
    { depthSize: "small" },
    fc.constantFrom({ type: "string" }, { type: "integer" }, {}),
    fc.integer({ min: 0, max: 4 }).map((i) => ({ $ref: `#/$defs/d${i}` })),
    fc.array(tie("s"), { minLength: 1, maxLength: 3 }).map((branches) => ({ anyOf: branches })),
    fc.tuple(tie("s"), tie("s")).map(([a, b]) => ({ type: "object", properties: { a, b } })),
    tie("s").map((items) => ({ type: "array", items })),
  ),
})).s;

describe("generated $defs", () => {
  it("are checked and started without a 5xx", async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(schema, { minLength: 5, maxLength: 5 }), async (defs) => {
        const name = `defs${n++}`;
        const definition = {
          name,
          $defs: Object.fromEntries(defs.map((d, i) => [`d${i}`, d])),
          input_schema: { type: "object", properties: { a: { $ref: "#/$defs/d0" } } },
          tasks: [{ id: "t", output: { v: "$: input.a" } }],
        };
        const where = JSON.stringify(definition).slice(0, 400);
        const check = await request(server.url, "POST", "/api/definitions/validate", [definition]);
        expect(check.status, `${where} → ${check.text.slice(0, 300)}`).toBeLessThan(500);
        const put = await request(server.url, "PUT", "/api/definitions", definition);
        expect(put.status, `${where} → ${put.text.slice(0, 300)}`).toBeLessThan(500);
        if (put.status !== 200) return;
        const start = await request(server.url, "POST", "/api/instances", { process: name, input: { a: "x" } });
        expect(start.status, `${where} → ${start.text.slice(0, 300)}`).toBeLessThan(500);
        if (start.status === 200) await settled(api, start.body.id);
      }),
      { numRuns: 150, seed: 1208 },
    );
  }, 240_000);
});

describe("the server throughout", () => {
  it("answered every /healthz probe", () => {
    expect(health!.failures).toEqual([]);
  });
});
