// Guard for docs/api.md "OpenAPI": a client generated from the published document with
// openapi-typescript + openapi-fetch must carry a whole user flow (flow/user-flow.ts) that
// type-checks under `strict` with no cast, and that flow must work against a real server.
// The type check runs the workspace's TypeScript 7 `tsc` as a process (it has no compiler API).
import { execFile } from "node:child_process";
import { cp, mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { buildOpenApi, registry } from "@baton/actions";
import { startServer, type TestServer } from "@baton/testkit";
import openapiTS, { astToString, type OpenAPI3 } from "openapi-typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const run = promisify(execFile);
const here = dirname(fileURLToPath(import.meta.url));
const packageDir = join(here, "..");
// Inside the package, so that the flow resolves openapi-fetch from this package's node_modules.
const work = join(packageDir, ".generated");
const rootRequire = createRequire(join(packageDir, "..", "..", "package.json"));
const tscOf7 = join(dirname(rootRequire.resolve("typescript/package.json")), "bin", "tsc");

let server: TestServer;

beforeAll(async () => {
  await rm(work, { recursive: true, force: true });
  await mkdir(work, { recursive: true });
  server = await startServer({ args: ["--poll", "0"] });
  const published = (await (await fetch(`${server.url}/public/openapi.json`)).json()) as OpenAPI3;
  expect(published, "the server publishes the registry's document").toEqual(
    JSON.parse(JSON.stringify(buildOpenApi(registry))),
  );
  const schema = astToString(await openapiTS(published));
  await writeFile(join(work, "schema.d.ts"), schema);
  await cp(join(packageDir, "flow", "user-flow.ts"), join(work, "user-flow.ts"));
  await writeFile(
    join(work, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        target: "ES2022",
        module: "NodeNext",
        moduleResolution: "NodeNext",
        lib: ["ES2023", "DOM"],
        types: [],
        strict: true,
        exactOptionalPropertyTypes: true,
        noUncheckedIndexedAccess: true,
        skipLibCheck: false,
        outDir: "out",
      },
      files: ["user-flow.ts", "schema.d.ts"],
    }),
  );
  await writeFile(join(work, "package.json"), JSON.stringify({ type: "module", private: true }));
}, 120_000);

afterAll(async () => {
  await server?.stop();
});

describe("a client generated from /public/openapi.json", () => {
  it("names the resources and types free-form objects as open maps", async () => {
    const schema = await readFile(join(work, "schema.d.ts"), "utf8");
    // `webhooks` and `$defs` are openapi-typescript's own empty maps, not schemas of ours.
    const ours = schema.replace(/^export type (webhooks|\$defs) = Record<string, never>;$/gm, "");
    expect(ours).not.toContain("Record<string, never>");
    for (const name of ["InstanceDetail", "LogEntry", "ExternalTask", "Token", "CompatReport", "ErrorBody"])
      expect(schema, name).toMatch(new RegExp(`\\b${name}: \\{`));
  });

  it("carries a whole user flow without a cast", async () => {
    const flow = await readFile(join(packageDir, "flow", "user-flow.ts"), "utf8");
    const code = flow.replace(/\/\/.*$/gm, "");
    expect(code, "no `as` cast").not.toMatch(/\bas\s+(?!const\b)[A-Za-z{[(]/);
    expect(code, "no any").not.toMatch(/\bany\b/);
    expect(code, "no non-null assertion").not.toMatch(/[\w)\]]!(?!=)/);
    expect(code, "no angle-bracket cast").not.toMatch(/=\s*<[A-Z]/);
  });

  it("type-checks that flow under strict with TypeScript 7", async () => {
    const result = await run(process.execPath, [tscOf7, "-p", join(work, "tsconfig.json")], { cwd: work }).then(
      () => ({ ok: true, out: "" }),
      (e: { stdout?: string; stderr?: string }) => ({ ok: false, out: `${e.stdout ?? ""}${e.stderr ?? ""}` }),
    );
    expect(result.out).toBe("");
    expect(result.ok).toBe(true);
  }, 120_000);

  it("runs that flow against a real server", async () => {
    const { userFlow } = (await import(pathToFileURL(join(work, "out", "user-flow.js")).href)) as {
      userFlow: (baseUrl: string) => Promise<Record<string, unknown>>;
    };
    const seen = await userFlow(server.url);
    expect(seen).toMatchObject({
      health: "ok",
      version: 1,
      promoted: ["greeting v1 (was 0)"],
      channels: ["production=1", "staging=1"],
      channelPageSize: 100,
      lifecycle: ["paused", "resumed"],
      status: "completed",
      output: { greeting: "Hello, Ada" },
      storedInput: { name: "Ada", shout: false },
      outputs: ["approve", "greet"],
      errorCode: null,
      missing: "not_found",
    });
    expect(seen.events).toContain("instance.completed");
  }, 120_000);
});
