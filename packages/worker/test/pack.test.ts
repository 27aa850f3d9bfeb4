import { execFile } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { compileConsumer, installPacked } from "@baton/pack";
import { describe, expect, it } from "vitest";

const run = promisify(execFile);
const packageDir = fileURLToPath(new URL("..", import.meta.url));
const _workspace = path.join(packageDir, "..", "..");

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

// One claimed task carrying a traceparent, answered by a loopback stand-in for the claim and
// resolve endpoints: the installed project has no @opentelemetry/api (docs/tracing.md "Workers").
const TRACED_TASK = `
import { createServer } from "node:http";
import { createWorker } from "@baton/worker";
const task = { token: "t1", process: "orders", version: 1, task: "approve", external_input: {}, result_schema: {},
  raises: {}, waiting_since: "2026-01-01T00:00:00Z", deadline: null, claimed_by: "w", claim_expires: "2026-01-01T00:01:00Z",
  instance_id: "i1", root_id: "i1", key: null, task_epoch: 1, attempt: 1,
  traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01" };
let resolved;
const server = createServer((req, res) => {
  let body = "";
  req.on("data", (c) => (body += c));
  req.on("end", () => {
    res.setHeader("content-type", "application/json");
    if (req.url.endsWith("/claim")) return res.end(JSON.stringify({ items: [task] }));
    if (req.url.endsWith("/resolve-batch")) { res.statusCode = 404; return res.end("{}"); }
    resolved = JSON.parse(body).result;
    res.end("{}");
  });
}).listen(0, "127.0.0.1", async () => {
  const worker = createWorker({ server: "http://127.0.0.1:" + server.address().port, once: true, handler: async () => ({ ok: true }) });
  await worker.run();
  console.log("resolved " + JSON.stringify(resolved));
  server.close();
});
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

    expect(manifest.peerDependenciesMeta, "@opentelemetry/api is an optional peer, never bundled").toEqual({
      "@opentelemetry/api": { optional: true },
    });
    const traced = await run(process.execPath, ["--input-type=module", "-e", TRACED_TASK], { cwd: project });
    expect(traced.stdout, "a task with a traceparent is handled without OpenTelemetry installed").toBe(
      'resolved {"ok":true}\n',
    );

    const checked = await compileConsumer(project, CONSUMER, { emit: false });
    expect(checked, "the consumer type-checks against the shipped declarations").toBe("");
  }, 120_000);
});
