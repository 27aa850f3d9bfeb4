import { describe, expect, it } from "vitest";
import { fakeFetch, type Recorded, runInProcess } from "../../test/support/fake-io.js";

const task = (token: string, input: unknown = { n: 1 }) => ({
  token,
  process: "orders",
  version: 3,
  task: "pack",
  external_input: input,
  result_schema: {},
  raises: { out_of_stock: null },
  waiting_since: "2026-01-01T00:00:00.000Z",
  deadline: null,
  claimed_by: "w",
  claim_expires: "2026-01-01T00:00:30.000Z",
  instance_id: "019a3c1e-7c2b-7d10-8f00-4b6e2a9d1c55",
  root_id: "019a3c1e-7c2b-7d10-8f00-4b6e2a9d1c55",
  key: "order-7",
  task_epoch: 4,
  attempt: 2,
});

/** A fake external-task API: claim hands out `tasks` once, renew answers with `renewAnswer`. */
function externalApi(
  tasks: unknown[],
  renewAnswer: (tokens: string[]) => { lost?: string[]; cancelled?: string[] } = () => ({}),
  renewBeforeMs = 10_000,
) {
  let handedOut = false;
  return fakeFetch((request: Recorded) => {
    const body = request.body as { tokens?: string[] };
    switch (request.url.pathname) {
      case "/api/external-tasks/claim": {
        const items = handedOut ? [] : tasks;
        handedOut = true;
        return { body: { items, renew_before_ms: renewBeforeMs } };
      }
      case "/api/external-tasks/renew": {
        const answer = renewAnswer(body.tokens ?? []);
        const lost = answer.lost ?? [];
        const cancelled = answer.cancelled ?? [];
        const renewed = (body.tokens ?? []).filter((token) => !lost.includes(token) && !cancelled.includes(token));
        return { body: { renewed, lost, cancelled, renew_before_ms: renewBeforeMs } };
      }
      case "/api/external-tasks/resolve":
        return { body: { resolved: true } };
      case "/api/external-tasks/release":
        return { body: { released: true } };
      default:
        return undefined;
    }
  });
}

const calls = (recorded: Recorded[], path: string) =>
  recorded.filter((call) => call.url.pathname === `/api/external-tasks/${path}`).map((call) => call.body);

describe("baton worker --once", () => {
  it("resolves each claimed task with the command's JSON stdout, given the input on stdin", async () => {
    const api = externalApi([task("t1", { items: [1, 2, 3] }), task("t2", { items: [] })]);
    const run = await runInProcess(
      ["worker", "--once", "--concurrency", "2", "--exec", "cat", "--process", "orders", "--worker-id", "w1"],
      { fetch: api.fetch },
    );
    expect(run.code, run.stderr).toBe(0);
    expect(calls(api.calls, "claim")).toEqual([{ worker_id: "w1", limit: 2, process: "orders" }]);
    expect(calls(api.calls, "resolve")).toEqual(
      expect.arrayContaining([
        { token: "t1", result: { items: [1, 2, 3] } },
        { token: "t2", result: { items: [] } },
      ]),
    );
    expect(run.stdout).toBe("resolved  orders v3 task pack\nresolved  orders v3 task pack\n");
  });

  it("passes the task identity in the environment and takes empty stdout as null", async () => {
    const api = externalApi([task("t1")]);
    const run = await runInProcess(
      [
        "worker",
        "--once",
        "--exec",
        'test "$BATON_PROCESS/$BATON_VERSION/$BATON_TASK/$BATON_INSTANCE_ID/$BATON_TASK_EPOCH/$BATON_ATTEMPT/$BATON_KEY" = orders/3/pack/019a3c1e-7c2b-7d10-8f00-4b6e2a9d1c55/4/2/order-7',
      ],
      { fetch: api.fetch },
    );
    expect(run.code, run.stderr).toBe(0);
    expect(calls(api.calls, "resolve")).toEqual([{ token: "t1", result: null }]);
  });

  it("passes the task's trace context as TRACEPARENT when the claim carries one", async () => {
    const traceparent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
    const api = externalApi([{ ...task("t1"), traceparent }]);
    const run = await runInProcess(["worker", "--once", "--exec", `test "$TRACEPARENT" = ${traceparent}`], {
      fetch: api.fetch,
    });
    expect(run.code, run.stderr).toBe(0);
    expect(calls(api.calls, "resolve")).toEqual([{ token: "t1", result: null }]);
  });

  it("streams the command's stderr, each line prefixed with its task, while still answering from stdout", async () => {
    const api = externalApi([task("t1")]);
    const run = await runInProcess(["worker", "--once", "--exec", "echo one >&2; echo two >&2; echo '{}'"], {
      fetch: api.fetch,
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toBe("[orders/pack#1] one\n[orders/pack#1] two\n");
    expect(calls(api.calls, "resolve")).toEqual([{ token: "t1", result: {} }]);
  });

  it("sends an error outcome when the command exits 2", async () => {
    const api = externalApi([task("t1")]);
    const run = await runInProcess(
      [
        "worker",
        "--once",
        "--json",
        "--exec",
        `echo '{"code": "out_of_stock", "message": "none left", "data": null}'; exit 2`,
      ],
      { fetch: api.fetch },
    );
    expect(run.code, run.stderr).toBe(0);
    expect(calls(api.calls, "resolve")).toEqual([
      { token: "t1", error: { code: "out_of_stock", message: "none left", data: null } },
    ]);
    expect(JSON.parse(run.stdout)).toEqual({
      outcome: "raised",
      process: "orders",
      version: 3,
      task: "pack",
      reason: "out_of_stock",
    });
  });

  it("releases the task when the command fails or prints something that is not JSON, and exits 1", async () => {
    for (const [exec, reason] of [
      ["echo broken >&2; exit 1", "the command exited 1: broken"],
      ["echo not json", "the command exited 0 but its stdout is not JSON"],
      ["echo '[1]'; exit 2", 'the command exited 2 but its stdout has no string "code"'],
    ]) {
      const api = externalApi([task("t1")]);
      const run = await runInProcess(["worker", "--once", "--exec", exec], { fetch: api.fetch });
      expect(run.code, exec).toBe(1);
      expect(calls(api.calls, "release")).toEqual([{ token: "t1" }]);
      expect(calls(api.calls, "resolve")).toEqual([]);
      expect(run.stderr).toContain(`released  orders v3 task pack: ${reason}`);
      expect(run.stderr).toMatch(/error: 1 claimed task was not resolved\n$/);
    }
  });

  it("stops the command (and what it started) at once when renewal says the claim is lost, without releasing or resolving", async () => {
    const api = externalApi([task("t1")], (tokens) => ({ lost: tokens }), 100);
    const run = await runInProcess(["worker", "--once", "--exec", "sleep 5; echo '{}'"], { fetch: api.fetch });
    expect(run.code).toBe(1);
    expect(calls(api.calls, "renew")[0]).toMatchObject({ tokens: ["t1"] });
    expect(calls(api.calls, "resolve")).toEqual([]);
    expect(calls(api.calls, "release"), "a lost claim belongs to someone else now").toEqual([]);
    expect(run.stderr).toContain("lost      orders v3 task pack: another worker holds the claim now");
  }, 4_000);

  it("stops the command and releases the task when its instance was cancelled", async () => {
    const api = externalApi([task("t1")], (tokens) => ({ cancelled: tokens }), 100);
    const run = await runInProcess(["worker", "--once", "--exec", "sleep 5"], { fetch: api.fetch });
    expect(run.code, run.stderr).toBe(0);
    expect(calls(api.calls, "release")).toEqual([{ token: "t1" }]);
    expect(run.stdout).toContain("cancelled orders v3 task pack");
  }, 4_000);

  it("ends with the server's one-line error when it cannot claim (e.g. 501 before external tasks land)", async () => {
    const { fetch } = fakeFetch(() => ({ status: 501, body: { code: "unsupported", error: "not implemented yet." } }));
    const run = await runInProcess(["worker", "--once", "--exec", "true"], { fetch });
    expect(run).toEqual({ code: 1, stdout: "", stderr: "error: unsupported: not implemented yet.\n" });
  });

  it("refuses a --wait longer than the server's 60 s limit before calling the server", async () => {
    const api = externalApi([task("t1")]);
    const run = await runInProcess(["worker", "--once", "--wait", "2m", "--exec", "true"], { fetch: api.fetch });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("--wait");
    expect(run.stderr).toContain("60s");
    expect(api.calls).toEqual([]);
  });
});
