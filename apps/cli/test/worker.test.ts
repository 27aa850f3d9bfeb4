import { execFile } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { BATON_MAIN, isolatedEnv } from "./support/baton.js";

// The built binary against a small HTTP stand-in that speaks the external-task endpoints, so
// lost/cancelled renewals and refusals can be staged; instances.test.ts runs a worker against the real server.
interface Recorded {
  path: string;
  body: any;
}

let server: Server | undefined;

afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

async function body(request: IncomingMessage): Promise<any> {
  let text = "";
  for await (const chunk of request) text += chunk;
  return text ? JSON.parse(text) : undefined;
}

/** `batch`: the stand-in also answers resolve-batch (else 404, as a server without the extension). */
async function standIn(tasks: unknown[], batch = false): Promise<{ url: string; calls: Recorded[] }> {
  const calls: Recorded[] = [];
  let handedOut = false;
  server = createServer(async (request, response) => {
    const recorded = { path: request.url ?? "", body: await body(request) };
    calls.push(recorded);
    const answer = (status: number, value: unknown) => {
      response.writeHead(status, { "content-type": "application/json" });
      response.end(JSON.stringify(value));
    };
    if (recorded.path === "/api/external-tasks/claim") {
      answer(200, { items: handedOut ? [] : tasks, renew_before_ms: 20_000 });
      handedOut = true;
    } else if (recorded.path === "/api/external-tasks/renew")
      answer(200, { renewed: recorded.body.tokens, lost: [], cancelled: [], renew_before_ms: 20_000 });
    else if (recorded.path === "/api/external-tasks/resolve") answer(200, { resolved: true });
    else if (recorded.path === "/api/external-tasks/resolve-batch" && batch)
      answer(200, {
        items: recorded.body.items.map((item: { token: string }) => ({ token: item.token, resolved: true })),
      });
    else if (recorded.path === "/api/external-tasks/release") answer(200, { released: true });
    else answer(404, { code: "not_found", error: "no such endpoint" });
  });
  await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server!.address() as AddressInfo).port}`, calls };
}

const task = (token: string, input: unknown) => ({
  token,
  process: "orders",
  version: 1,
  task: "pack",
  external_input: input,
  result_schema: {},
  raises: {},
  waiting_since: "2026-01-01T00:00:00.000Z",
  deadline: null,
  claimed_by: "w",
  claim_expires: "2026-01-01T00:00:30.000Z",
});

const runWorker = (args: string[], env: NodeJS.ProcessEnv) =>
  new Promise<{ code: number; stdout: string }>((resolve) =>
    execFile(process.execPath, [BATON_MAIN, ...args], { env }, (error, stdout) =>
      resolve({ code: error ? (error.code as number) : 0, stdout }),
    ),
  );

describe("baton worker (built binary)", () => {
  it("answers a claimed task with the command's output", async () => {
    const api = await standIn([task("t1", { items: [1, 2] })]);
    const { env } = isolatedEnv({ BATON_SERVER: api.url });
    const run = await new Promise<{ code: number; stdout: string }>((resolve) =>
      execFile(process.execPath, [BATON_MAIN, "worker", "--once", "--exec", "cat"], { env }, (error, stdout) =>
        resolve({ code: error ? (error.code as number) : 0, stdout }),
      ),
    );
    expect(run).toEqual({ code: 0, stdout: "resolved  orders v1 task pack\n" });
    expect(api.calls.find((call) => call.path === "/api/external-tasks/resolve")?.body).toEqual({
      token: "t1",
      result: { items: [1, 2] },
    });
  });

  it("answers every task exactly once whether its answer went alone or in a resolve-batch", async () => {
    const tokens = ["t1", "t2", "t3", "t4"];
    const api = await standIn(
      tokens.map((token, i) => task(token, { n: i })),
      true,
    );
    const { env } = isolatedEnv({ BATON_SERVER: api.url });
    const run = await runWorker(["worker", "--once", "--concurrency", "4", "--exec", "cat"], env);
    expect(run.code).toBe(0);
    const answered = api.calls.flatMap((call) =>
      call.path === "/api/external-tasks/resolve"
        ? [call.body]
        : call.path === "/api/external-tasks/resolve-batch"
          ? call.body.items
          : [],
    );
    expect(answered.map((a: { token: string }) => a.token).sort()).toEqual(tokens);
    expect(answered.find((a: { token: string }) => a.token === "t3")).toEqual({ token: "t3", result: { n: 2 } });
  });

  it("with --no-batch sends one resolve per task and never resolve-batch", async () => {
    const api = await standIn([task("t1", { n: 1 }), task("t2", { n: 2 }), task("t3", { n: 3 })], true);
    const { env } = isolatedEnv({ BATON_SERVER: api.url });
    const run = await runWorker(["worker", "--once", "--no-batch", "--concurrency", "3", "--exec", "cat"], env);
    expect(run.code).toBe(0);
    expect(api.calls.filter((call) => call.path === "/api/external-tasks/resolve")).toHaveLength(3);
    expect(api.calls.filter((call) => call.path === "/api/external-tasks/resolve-batch")).toEqual([]);
  });

  it("takes the commands it started down with it when interrupted", async () => {
    const api = await standIn([task("t1", {})]);
    const { env, home } = isolatedEnv({ BATON_SERVER: api.url });
    const pidFile = path.join(home, "sleeper.pid");
    const child = execFile(
      process.execPath,
      [BATON_MAIN, "worker", "--exec", `sleep 60 & echo $! > ${pidFile}; wait`],
      { env },
    );
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    for (let i = 0; i < 100 && !existsSync(pidFile); i++) await new Promise((resolve) => setTimeout(resolve, 50));
    const sleeper = Number(readFileSync(pidFile, "utf8"));
    child.kill("SIGINT");
    expect(await exited).toBe(130);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(isRunning(sleeper), "the command's own children must not outlive the worker").toBe(false);
  });
});

/** True while the process exists and is not a zombie waiting to be reaped. */
function isRunning(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.split(") ")[1]?.[0] !== "Z";
  } catch {
    return false;
  }
}
