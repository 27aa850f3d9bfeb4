import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { compileConsumer, installPacked } from "@baton/pack";
import { startServer } from "@baton/testkit";
import { describe, expect, it } from "vitest";

const run = promisify(execFile);
const packageDir = fileURLToPath(new URL("..", import.meta.url));
const _workspace = path.join(packageDir, "..", "..");

// A typed consumer: compiles only if the shipped declarations are complete and self-contained,
// and refuses what the registry's types refuse.
const CONSUMER = `
import { ApiError, createClient, INSTANCE_STATUSES, type InstanceStatusView } from "@baton/client";

const baton = createClient({ server: process.argv[2]!, token: process.env.BATON_TOKEN });
await baton.call("putDefinition", { body: { name: "greet", tasks: [{ id: "hello", output: { at: "$: now_ms()" } }] } });
const started = await baton.call("startInstance", { body: { process: "greet", input: {}, key: "order-7" } });
let view: InstanceStatusView = await baton.call("getInstance", { params: { id: started.id } });
while (view.status !== "completed") {
  await new Promise((resolve) => setTimeout(resolve, 50));
  view = await baton.call("getInstance", { params: { id: started.id } });
}
const missing = await baton.call("getInstance", { params: { id: "0190a5e4-0000-7000-8000-000000000000" } }).catch((e: unknown) => e);
console.log(JSON.stringify({
  status: view.status,
  key: view.key,
  missing: missing instanceof ApiError ? [missing.status, missing.code] : null,
  statuses: INSTANCE_STATUSES.length > 0,
}));
// @ts-expect-error: no such action
export const wrong = () => baton.call("startInstances", {});
// @ts-expect-error: startInstance takes a body
export const noBody = () => baton.call("startInstance", { params: { id: "x" } });
`;

/** The names of the values the shipped declarations declare. */
function declaredValues(declarations: string): string[] {
  const names = [...declarations.matchAll(/^export declare (?:const|function|class) ([A-Za-z_$][\w$]*)/gm)].map(
    (m) => m[1]!,
  );
  return [...new Set(names)].sort();
}

describe("the packed client", () => {
  it("installs from its tarball offline, declares exactly the values it exports, and drives a real server typed", async () => {
    const { tarball, project, manifest, modules } = await installPacked(packageDir, "@baton/client");
    expect(path.basename(tarball)).toMatch(/^baton-client-\d+\.\d+\.\d+\.tgz$/);
    expect(manifest.dependencies, "a bundled client needs nothing from a registry").toBeUndefined();
    expect(manifest.keywords).toContain("baton");
    expect(modules).toEqual(["@baton"]);

    const probe = `import("@baton/client").then((m) => console.log(Object.keys(m).sort().join(",")))`;
    const imported = await run(process.execPath, ["--input-type=module", "-e", probe], { cwd: project });
    const declarations = readFileSync(
      path.join(project, "node_modules", "@baton", "client", "dist", "index.d.ts"),
      "utf8",
    );
    expect(imported.stdout.trim().split(",")).toEqual(declaredValues(declarations));
    expect(declarations, "self-contained: nothing left to import").not.toMatch(/^\s*import\s/m);

    const checked = await compileConsumer(project, CONSUMER, { emit: true });
    expect(checked, "the consumer type-checks against the shipped declarations").toBe("");

    const server = await startServer({ args: ["--poll", "20"] });
    try {
      const ran = await run(process.execPath, ["consumer.js", server.url], { cwd: project });
      expect(JSON.parse(ran.stdout)).toEqual({
        status: "completed",
        key: "order-7",
        missing: [404, "not_found"],
        statuses: true,
      });
    } finally {
      await server.stop();
    }
  }, 180_000);
});
