import { spawn } from "node:child_process";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { startServer, type TestServer } from "@baton/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// The Python SDK's scenarios (tests/test_worker.py, the scenarios of @baton/worker's tests)
// against the real, built server: PGlite, or a fresh PostgreSQL database with DATABASE_URL.
// One `python3 -m unittest` run per scenario, so each passes or fails on its own here. The
// server traces (docs/tracing.md) into a sink that accepts every OTLP export, so claimed tasks
// carry `traceparent` as they do in a traced deployment.
const ROOT = fileURLToPath(new URL("..", import.meta.url));
let server: TestServer;
let otlpSink: Server;

beforeAll(async () => {
  otlpSink = createServer((req, res) => req.resume().on("end", () => res.writeHead(200).end()));
  await new Promise<void>((resolve) => otlpSink.listen(0, "127.0.0.1", resolve));
  server = await startServer({
    env: {
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(otlpSink.address() as AddressInfo).port}`,
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
    },
  });
});

afterAll(async () => {
  await server?.stop();
  otlpSink?.close();
});

function unittest(name: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn("python3", ["-m", "unittest", "-v", `test_worker.${name}`], {
      cwd: `${ROOT}tests`,
      env: { ...process.env, BATON_SERVER: server.url, PYTHONDONTWRITEBYTECODE: "1" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk) => (output += chunk));
    child.stderr.on("data", (chunk) => (output += chunk));
    child.on("error", reject);
    child.on("exit", (code) => resolve({ code, output }));
  });
}

const SCENARIOS = {
  WorkerScenarios: [
    "test_keeps_a_claim_alive_across_renewals_and_resolves",
    "test_exposes_the_task_identity",
    "test_resolves_a_raised_outcome_through_the_tasks_raises",
    "test_stops_the_handler_with_cancelled_when_the_instance_is_cancelled_and_releases",
    "test_stops_the_handler_with_lost_without_answering_when_another_worker_took_the_claim",
    "test_long_polls_its_claims",
  ],
  BatchedResolves: [
    "test_answers_ready_while_a_resolve_is_in_flight_leave_together_each_with_its_own_outcome",
    "test_a_server_without_resolve_batch_gets_single_resolves_from_then_on",
  ],
  WorkerProcess: [
    "test_killed_mid_task_a_restarted_worker_claims_once_the_lease_lapses",
    "test_on_sigterm_releases_a_running_task_after_the_grace_period",
  ],
};

for (const [group, names] of Object.entries(SCENARIOS))
  describe(`baton_worker (Python): ${group}`, () => {
    for (const name of names)
      it(name.replace(/^test_/, "").replaceAll("_", " "), async () => {
        const run = await unittest(`${group}.${name}`);
        expect(run.code, run.output).toBe(0);
        expect(run.output).toMatch(/\nOK\n?$/);
      });
  });

it("every scenario in tests/test_worker.py is listed here", async () => {
  const listed = new Set(Object.entries(SCENARIOS).flatMap(([group, names]) => names.map((n) => `${group}.${n}`)));
  const found = await new Promise<string>((resolve, reject) => {
    const child = spawn(
      "python3",
      [
        "-c",
        "import unittest; s = unittest.defaultTestLoader.loadTestsFromName('test_worker');\n" +
          "def walk(s):\n  for t in s:\n    yield from (walk(t) if isinstance(t, unittest.TestSuite) else [t.id()])\n" +
          "print('\\n'.join(walk(s)))",
      ],
      {
        cwd: `${ROOT}tests`,
        env: { ...process.env, PYTHONDONTWRITEBYTECODE: "1" },
        stdio: ["ignore", "pipe", "inherit"],
      },
    );
    let out = "";
    child.stdout.on("data", (chunk) => (out += chunk));
    child.on("error", reject);
    child.on("exit", () => resolve(out));
  });
  const defined = found
    .trim()
    .split("\n")
    .map((id) => id.replace(/^test_worker\./, ""));
  expect(new Set(defined)).toEqual(listed);
});
