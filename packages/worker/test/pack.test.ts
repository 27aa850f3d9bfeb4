import { execFile } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { installPacked } from "@baton/pack";
import { describe, expect, it } from "vitest";

const run = promisify(execFile);
const packageDir = fileURLToPath(new URL("..", import.meta.url));
const workspace = path.join(packageDir, "..", "..");

// A typed consumer: compiles only if the shipped declarations are complete and self-contained.
const CONSUMER = `
import { createWorker, raise, type WorkerEvent } from "@baton/worker";

interface Approve {
  input: { amount: number };
  result: { approved: boolean };
  raises: { rejected: { reason: string } };
}

const events: WorkerEvent[] = [];
export const worker = createWorker<Approve>({
  server: "http://127.0.0.1:1",
  process: "orders",
  concurrency: 2,
  leaseMs: 30_000,
  onEvent: (event) => events.push(event),
  handler: async (task, { signal, raise: typedRaise }) => {
    if (signal.aborted) throw signal.reason;
    if (task.external_input.amount > 100) return typedRaise("rejected", { data: { reason: "budget" } });
    // @ts-expect-error: "nope" is not one of the task's raises
    if (task.external_input.amount < 0) return typedRaise("nope");
    return { approved: true };
  },
});
export const untyped = raise("anything");
`;

describe("the packed worker SDK", () => {
  it("installs from its tarball into an empty project without network, imports, and type-checks a typed handler", async () => {
    const { tarball, project, manifest, modules } = await installPacked(packageDir, "@baton/worker");
    expect(path.basename(tarball)).toMatch(/^baton-worker-\d+\.\d+\.\d+\.tgz$/);
    expect(manifest.dependencies, "a bundled SDK needs nothing from a registry").toBeUndefined();
    expect(modules).toEqual(["@baton"]);

    const probe = `import("@baton/worker").then((m) => console.log(Object.keys(m).sort().join(",")))`;
    const imported = await run(process.execPath, ["--input-type=module", "-e", probe], { cwd: project });
    expect(imported.stdout).toBe("TaskStopped,createWorker,raise\n");

    writeFileSync(path.join(project, "consumer.ts"), CONSUMER);
    writeFileSync(
      path.join(project, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          target: "ES2022",
          module: "NodeNext",
          moduleResolution: "NodeNext",
          strict: true,
          noEmit: true,
          // A Node project has @types/node; this one borrows the workspace's.
          typeRoots: [path.join(workspace, "node_modules", "@types")],
          types: ["node"],
        },
        files: ["consumer.ts"],
      }),
    );
    writeFileSync(
      path.join(project, "package.json"),
      JSON.stringify({ ...JSON.parse(readFileSync(path.join(project, "package.json"), "utf8")), type: "module" }),
    );
    const tsc = path.join(workspace, "node_modules", ".bin", "tsc");
    const checked = await run(tsc, ["-p", "tsconfig.json"], { cwd: project }).catch((error) => error);
    expect(checked.stdout ?? "", "the consumer type-checks against the shipped declarations").toBe("");
  }, 120_000);
});
