import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { LosslessNumber } from "@baton/expr";
import { describe, expect, it } from "vitest";
import { fakeFetch, runInProcess } from "../test/support/fake-io.js";
import { asksForVersion } from "./run-cli.js";

const instance = (fields: Record<string, unknown>) => ({
  id: "i-1",
  process: "orders",
  version: 2,
  status: "running",
  task: "charge",
  retry_count: 0,
  created_at: "2026-01-01T00:00:00.000Z",
  updated_at: "2026-01-01T00:00:01.000Z",
  ...fields,
});

describe("asksForVersion", () => {
  it("is the --version flag before any command, not a command's own --version option", () => {
    expect(asksForVersion(["--version"])).toBe(true);
    expect(asksForVersion(["--json", "-V"])).toBe(true);
    expect(asksForVersion(["--server", "http://x", "--version"])).toBe(true);
    expect(asksForVersion(["instances", "--version", "3"])).toBe(false);
  });
});

describe("errors and exit codes", () => {
  it("names the URL it tried when the server is unreachable, exit 5", async () => {
    const fetch = (async () => {
      throw new TypeError("fetch failed", { cause: new Error("connect ECONNREFUSED 127.0.0.1:9") });
    }) as typeof globalThis.fetch;
    const run = await runInProcess(["instances", "--server", "http://127.0.0.1:9"], { fetch });
    expect(run).toEqual({
      code: 5,
      stdout: "",
      stderr:
        "error: cannot reach the Baton server at http://127.0.0.1:9 (is it running? set --server or BATON_SERVER)\n",
    });
  });

  it.each([
    [401, "unauthenticated", 3],
    [403, "forbidden", 3],
    [404, "not_found", 4],
    [409, "conflict", 1],
    [500, "internal", 1],
    [501, "unsupported", 1],
  ])("maps HTTP %i (%s) to exit %i with one error line", async (status, code, exit) => {
    const { fetch } = fakeFetch(() => ({ status, body: { code, error: "what went wrong." } }));
    const run = await runInProcess(["get", "i-1"], { fetch });
    expect(run.code).toBe(exit);
    expect(run.stderr).toBe(`error: ${code}: what went wrong.\n`);
  });

  it("lists field problems of a 400 one per line under the error", async () => {
    const { fetch } = fakeFetch(() => ({
      status: 400,
      body: { code: "invalid", error: "the body is invalid.", fields: [{ path: "version", message: "must be >= 1" }] },
    }));
    const run = await runInProcess(["channels", "set", "orders", "prod", "3"], { fetch });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe("error: invalid: the body is invalid.\n  version: must be >= 1\n");
  });

  it("reports usage errors with exit 2 and no request", async () => {
    const { fetch, calls } = fakeFetch(() => undefined);
    for (const argv of [
      ["run"],
      ["instances", "--status", "nope"],
      ["channels", "set", "a", "b", "x"],
      ["bogus"],
      ["run", "x", "--timeout", "5s"],
    ]) {
      const run = await runInProcess(argv, { fetch });
      expect(run.code, argv.join(" ")).toBe(2);
      expect(run.stderr).toMatch(/error: /);
    }
    expect(calls).toEqual([]);
  });

  it("refuses @last before any run", async () => {
    const run = await runInProcess(["get", "@last"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^error: @last is not set: no instance has been started with baton run yet/);
  });
});

describe("deploy", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "baton-deploy-"));
  writeFileSync(path.join(dir, "defs.yaml"), "name: orders\ntasks: [{id: a}]\n---\nname: billing\ntasks: [{id: b}]\n");

  it("puts each definition and prints name vN (new|unchanged, previous vM)", async () => {
    const versions: Record<string, { version: number; saved: boolean }> = {
      orders: { version: 3, saved: true },
      billing: { version: 1, saved: false },
    };
    const { fetch, calls } = fakeFetch((request) => {
      const name = (request.body as { name: string }).name;
      return { body: { name, ...versions[name] } };
    });
    const run = await runInProcess(["deploy", "defs.yaml"], { fetch, cwd: dir });
    expect(run).toMatchObject({ code: 0, stdout: "orders v3 (new, previous v2)\nbilling v1 (unchanged)\n" });
    expect(calls.map((call) => `${call.method} ${call.url.pathname}`)).toEqual([
      "PUT /api/definitions",
      "PUT /api/definitions",
    ]);

    const json = await runInProcess(["deploy", "defs.yaml", "--json"], { fetch, cwd: dir });
    expect(JSON.parse(json.stdout), "--json prints the array of responses").toEqual([
      { name: "orders", version: 3, saved: true },
      { name: "billing", version: 1, saved: false },
    ]);
  });

  it("sends one batch with --channel", async () => {
    const { fetch, calls } = fakeFetch(() => ({
      body: [
        { name: "orders", version: 3, saved: true, previous: 2 },
        { name: "billing", version: 1, saved: false, previous: 0 },
      ],
    }));
    const run = await runInProcess(["deploy", "*.yaml", "--channel", "staging"], { fetch, cwd: dir });
    expect(run.stdout).toBe("orders v3 (new, previous v2 on staging)\nbilling v1 (unchanged, first on staging)\n");
    expect(calls).toHaveLength(1);
    expect(calls[0].url.pathname).toBe("/api/definitions/batch");
    expect(calls[0].body).toEqual({
      channel: "staging",
      definitions: [
        { name: "orders", tasks: [{ id: "a" }] },
        { name: "billing", tasks: [{ id: "b" }] },
      ],
    });
  });

  it("locates a rejected definition's field problems in the files", async () => {
    const { fetch } = fakeFetch(() => ({
      status: 400,
      body: {
        code: "invalid",
        error: "1 definition is invalid.",
        fields: [{ path: "definitions[1].tasks[0].action", message: "unknown field" }],
      },
    }));
    const run = await runInProcess(["deploy", "defs.yaml", "-c", "staging"], { fetch, cwd: dir });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      "error: invalid: 1 problem in the definitions\n  defs.yaml (document 2), process billing, task b, field tasks[0].action: unknown field\n",
    );
  });
});

describe("validate", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "baton-validate-"));
  writeFileSync(path.join(dir, "orders.yaml"), "name: orders\ntasks: [{id: a}]\n");

  it("prints ok per process, and the inferred schemas with --schemas", async () => {
    const { fetch } = fakeFetch(() => ({
      body: [
        {
          process: "orders",
          version: 4,
          process_input: { type: "object" },
          process_output: {},
          tasks: { a: { action_type: null, output: { type: "string" } } },
        },
      ],
    }));
    const run = await runInProcess(["validate", "orders.yaml", "--schemas"], { fetch, cwd: dir });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("ok  orders (would be v4)\n");
    expect(run.stdout).toContain('    input: {\n      "type": "object"\n    }\n');
    expect(run.stdout).toContain('    task a:\n      output: {\n        "type": "string"\n      }\n');
  });
});

describe("compat", () => {
  it("renders gating issues first and exits 1 when the check does not pass", async () => {
    const { fetch, calls } = fakeFetch(() => ({
      body: {
        compatible: false,
        passes: false,
        processes: [
          {
            name: "orders",
            status: "compared",
            from: 3,
            to: 4,
            upgrade: { compatible: false },
            contract: { compatible: true },
            changed: [{ address: "tasks.charge", task: "charge" }],
            issues: [
              { member: "contract", address: "output", path: "total", message: "narrower", gating: false },
              {
                member: "upgrade",
                address: "tasks.charge.output",
                path: "amount",
                message: "type changed",
                gating: true,
              },
            ],
          },
        ],
      },
    }));
    const run = await runInProcess(["compat", "--from", "production", "--to", "orders@4", "--ignore", "contract"], {
      fetch,
    });
    expect(calls[0].body).toEqual({
      from: { channel: "production" },
      to: { versions: { orders: 4 } },
      ignore: ["contract"],
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe("error: compat does not pass (1 gating issue)\n");
    const lines = run.stdout.split("\n");
    const gating = lines.findIndex((line) => line.includes("type changed"));
    const other = lines.findIndex((line) => line.includes("narrower"));
    expect(gating, "gating issues come first").toBeLessThan(other);
    expect(run.stdout).toContain("orders v3 → v4 (compared)");
    expect(run.stdout).toContain("compat does not pass");
  });

  it("refuses an --ignore member other than contract", async () => {
    const run = await runInProcess(["compat", "--from", "a", "--to", "b", "--ignore", "upgrade"]);
    expect(run.code).toBe(2);
  });
});

describe("lists", () => {
  it("follows every page with --all and prints the items as {items}", async () => {
    const pages: Record<string, { items: unknown[]; next: string | null }> = {
      "": { items: [instance({ id: "i-3" })], next: "c1" },
      c1: { items: [instance({ id: "i-2" })], next: "c2" },
      c2: { items: [instance({ id: "i-1", parent_id: null })], next: null },
    };
    const { fetch, calls } = fakeFetch((request) => {
      const page = pages[request.url.searchParams.get("after") ?? ""];
      return {
        body: {
          items: page.items,
          page: {
            size: 100,
            items_before: 0,
            items_after: 0,
            sort: "created_at",
            order: "desc",
            next_cursor: page.next,
            previous_cursor: null,
          },
        },
      };
    });
    const run = await runInProcess(
      ["instances", "--all", "--json", "--status", "failed,raised", "--process", "orders", "--children"],
      { fetch },
    );
    expect(JSON.parse(run.stdout).items.map((item: { id: string }) => item.id)).toEqual(["i-3", "i-2", "i-1"]);
    expect(calls).toHaveLength(3);
    expect(Object.fromEntries(calls[0].url.searchParams)).toEqual({
      status: "failed,raised",
      process: "orders",
      children: "true",
      limit: "100",
    });
  });

  it("prints the API's page as is with --json and hints at more pages on stderr otherwise", async () => {
    const body = {
      items: [instance({ parent_id: null, root_id: "i-1", phase: null })],
      page: {
        size: 20,
        items_before: 0,
        items_after: 7,
        sort: "created_at",
        order: "desc",
        next_cursor: "n",
        previous_cursor: null,
      },
    };
    const { fetch } = fakeFetch(() => ({ body }));
    const json = await runInProcess(["instances", "--json"], { fetch });
    expect(JSON.parse(json.stdout)).toEqual(body);
    const table = await runInProcess(["instances"], { fetch });
    expect(table.stdout.split("\n")[0], "empty PHASE and ERROR columns are hidden").toMatch(
      /^ID\s+PROCESS\s+VERSION\s+STATUS\s+TASK\s+UPDATED$/,
    );
    expect(table.stderr).toBe("7 more not shown; use --all to list every page\n");
  });
});

describe("run", () => {
  function engine(statuses: Record<string, unknown>[]) {
    let polls = 0;
    return fakeFetch((request) => {
      if (request.method === "POST") return { body: { id: "i-1", process: "orders", version: 2, status: "running" } };
      const fields = statuses[Math.min(polls++, statuses.length - 1)];
      return { body: instance(fields) };
    });
  }

  it("prints the id, remembers it as @last, and get @last reads it", async () => {
    const { fetch, calls } = engine([{}]);
    const home = mkdtempSync(path.join(tmpdir(), "baton-state-"));
    const env = { XDG_STATE_HOME: home };
    const run = await runInProcess(["run", "orders@2", "--set", "order_id=7"], { fetch, env });
    expect(run).toMatchObject({ code: 0, stdout: "i-1\n" });
    expect(calls[0].body).toEqual({ process: "orders", version: 2, input: { order_id: 7 } });
    const get = await runInProcess(["get", "@last"], { fetch, env });
    expect(calls[1].url.pathname).toBe("/api/instances/i-1");
    expect(get.stdout).toContain("orders v2");
  });

  it("--wait prints the output and exits 0 once completed, with progress only on a terminal", async () => {
    const { fetch } = engine([
      {},
      { task: "ship" },
      { status: "completed", output: { total: new LosslessNumber("12345678901234567890") } },
    ]);
    const piped = await runInProcess(["run", "orders", "--wait"], { fetch });
    expect(piped.code).toBe(0);
    expect(piped.stdout).toBe('{\n  "total": 12345678901234567890\n}\n');
    expect(piped.stderr).toBe("started i-1 (orders v2)\ni-1 completed (orders v2, 0.5s)\n");

    const tty = await runInProcess(["run", "orders", "--wait"], {
      fetch: engine([{}, { task: "ship" }, { status: "completed" }]).fetch,
      tty: true,
    });
    expect(tty.stderr).toContain("task charge");
    expect(tty.stderr).toContain("task ship");
    expect(tty.stderr).toContain("\r\x1b[K");
  });

  it("--wait exits 1 printing the error of a failed, raised or cancelled instance", async () => {
    const failed = await runInProcess(["run", "orders", "--wait"], {
      fetch: engine([{ status: "failed", error_code: "http.500", error_message: 'task "charge": http.500: boom' }])
        .fetch,
    });
    expect(failed.code).toBe(1);
    expect(failed.stderr).toBe("started i-1 (orders v2)\nerror: instance i-1 failed at task charge: http.500: boom\n");
    const cancelled = await runInProcess(["run", "orders", "--wait", "--json"], {
      fetch: engine([{ status: "cancelled" }]).fetch,
    });
    expect(cancelled.code).toBe(1);
    expect(JSON.parse(cancelled.stdout).status).toBe("cancelled");
  });

  it("--wait --timeout exits 2 and says the instance keeps running", async () => {
    const run = await runInProcess(["run", "orders", "--wait", "--timeout", "3s"], { fetch: engine([{}]).fetch });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(
      /^started i-1 \(orders v2\)\nerror: timed out after 3\.0s waiting for instance i-1 \(running at task charge\); it keeps running/,
    );
  });
});

describe("lifecycle", () => {
  it("says what happened for 200, 202 and 204", async () => {
    const answers = [
      { status: 200, body: { outcome: "paused", status: "paused", instances: 3 } },
      { status: 202, body: { outcome: "pausing", status: "pausing", instances: 1 } },
      { status: 204 },
    ];
    let i = 0;
    const { fetch, calls } = fakeFetch(() => answers[i++]);
    expect((await runInProcess(["pause", "i-1"], { fetch })).stdout).toBe("i-1: paused (3 instances, status paused)\n");
    expect((await runInProcess(["pause", "i-1"], { fetch })).stdout).toBe(
      "i-1: pausing (1 instance, status pausing; a task in flight is still draining)\n",
    );
    expect(
      (await runInProcess(["pause", "i-1", "--json"], { fetch })).stdout,
      "204 has no body: --json prints null",
    ).toBe("null\n");
    expect(calls.map((call) => `${call.method} ${call.url.pathname}`)).toEqual(
      Array(3).fill("POST /api/instances/i-1/pause"),
    );
  });

  it("retry --force sends force=true; upgrade reads the current version first", async () => {
    const { fetch, calls } = fakeFetch((request) => {
      if (request.url.pathname.endsWith("/retry"))
        return { body: { outcome: "retried", status: "running", instances: 1 } };
      if (request.method === "GET") return { body: instance({ version: 3 }) };
      return {
        body: {
          upgraded: true,
          moves: [{ instance_id: "i-1", process: "orders", from_version: 3, to_version: 4, task: "charge" }],
        },
      };
    });
    await runInProcess(["retry", "i-1", "--force"], { fetch });
    expect(calls[0].url.search).toBe("?force=true");
    const upgrade = await runInProcess(["upgrade", "i-1", "--to", "4"], { fetch });
    expect(calls[2].body).toEqual({ from_version: 3, to_version: 4 });
    expect(upgrade.stdout).toBe("i-1: upgraded v3 → v4\n  i-1  orders v3 → v4  at task charge\n");
  });
});

describe("login", () => {
  it("stores server and token, which later commands send as a bearer; logout removes them", async () => {
    const home = mkdtempSync(path.join(tmpdir(), "baton-login-"));
    const env = { XDG_CONFIG_HOME: home };
    const { fetch, calls } = fakeFetch(() => ({ body: { items: [] } }));
    const login = await runInProcess(["login", "--server", "http://stored:1/", "--token", "svc_sk_abc"], { env });
    expect(login.stdout).toBe(`logged in to http://stored:1 with a token (saved in ${home}/baton/config.json)\n`);
    await runInProcess(["tokens"], { fetch, env });
    expect(calls[0].url.origin).toBe("http://stored:1");
    expect(calls[0].headers.get("authorization")).toBe("Bearer svc_sk_abc");
    await runInProcess(["tokens", "--server", "http://other:2"], { fetch, env });
    expect(calls[1].headers.get("authorization"), "the stored token is only for the stored server").toBeNull();
    expect((await runInProcess(["logout"], { env })).stdout).toBe("logged out\n");
    expect((await runInProcess(["logout"], { env })).stdout).toBe("not logged in; nothing to remove\n");
  });

  it("needs --server", async () => {
    expect((await runInProcess(["login", "--token", "x"])).code).toBe(2);
  });
});

describe("colors", () => {
  const { fetch } = fakeFetch(() => ({ body: instance({ status: "failed" }) }));

  it("are used on a terminal only, and never with --no-color or NO_COLOR", async () => {
    expect((await runInProcess(["get", "i-1"], { fetch, tty: true })).stdout).toContain("\x1b[31mfailed");
    expect((await runInProcess(["get", "i-1"], { fetch })).stdout).not.toContain("\x1b[");
    expect((await runInProcess(["get", "i-1", "--no-color"], { fetch, tty: true })).stdout).not.toContain("\x1b[");
    expect((await runInProcess(["get", "i-1"], { fetch, tty: true, env: { NO_COLOR: "1" } })).stdout).not.toContain(
      "\x1b[",
    );
  });
});

describe("multi-line server messages", () => {
  it("stay one error: further lines are indented under the first", async () => {
    const { fetch } = fakeFetch(() => ({
      status: 409,
      body: { code: "conflict", error: "cannot retry.\nthe instance is cancelled." },
    }));
    const run = await runInProcess(["retry", "i-1"], { fetch });
    expect(run.stderr).toBe("error: conflict: cannot retry.\n  the instance is cancelled.\n");
  });
});

describe("signal", () => {
  it("delivers a result or an error outcome by instance and task", async () => {
    const answers = [
      { delivered: true, buffered: false },
      { delivered: false, buffered: true },
    ];
    let i = 0;
    const { fetch, calls } = fakeFetch(() => ({ body: answers[i++] }));
    const dir = mkdtempSync(path.join(tmpdir(), "baton-signal-"));
    writeFileSync(path.join(dir, "data.json"), '{"limit": 12345678901234567890}');
    const delivered = await runInProcess(["signal", "i-1", "approve", "--result", '{"approved": true}'], {
      fetch,
      cwd: dir,
    });
    expect(delivered.stdout).toBe("i-1 task approve: delivered\n");
    const buffered = await runInProcess(
      ["signal", "i-1", "approve", "--error", "rejected", "--message", "no", "--data", "@data.json"],
      { fetch, cwd: dir },
    );
    expect(buffered.stdout).toBe("i-1 task approve: buffered until the task waits\n");
    expect(calls[0].body).toEqual({ instance_id: "i-1", task: "approve", result: { approved: true } });
    expect(calls[1].url.pathname).toBe("/api/external-tasks/signal");
    expect(JSON.parse(JSON.stringify(calls[1].body))).toMatchObject({
      instance_id: "i-1",
      task: "approve",
      error: { code: "rejected", message: "no" },
    });
  });

  it("refuses --result with --error, and --message without --error", async () => {
    expect((await runInProcess(["signal", "i-1", "t", "--result", "1", "--error", "x"])).code).toBe(2);
    expect((await runInProcess(["signal", "i-1", "t", "--message", "m"])).code).toBe(2);
    expect((await runInProcess(["signal", "i-1", "t", "--result", "{nope"])).stderr).toMatch(
      /^error: --result: invalid JSON/,
    );
  });
});
