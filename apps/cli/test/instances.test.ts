import { readFileSync } from "node:fs";
import path from "node:path";
import { startServer, type TestServer } from "@baton/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BatonRun, baton, isolatedEnv } from "./support/baton.js";
import { deployFiles, FAILING_YAML, fixtureDir, GREET_YAML, RAISING_YAML } from "./support/fixtures.js";

// The server runs with --poll 0: instances advance only on `baton tick`, so every state is
// reached deterministically.
let server: TestServer;
let env: Record<string, string>;
const cli = (args: string[], cwd?: string): Promise<BatonRun> => baton(args, { env, cwd });
const lastInstance = () => readFileSync(path.join(env.XDG_STATE_HOME, "baton", "last-instance"), "utf8").trim();

/** Runs `baton ...args` while ticking the engine until it exits. */
async function whileTicking(args: string[]): Promise<BatonRun> {
  let done = false;
  const running = cli(args).finally(() => {
    done = true;
  });
  while (!done) {
    await cli(["tick"]);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return running;
}

beforeAll(async () => {
  server = await startServer({ args: ["--poll", "0"] });
  env = isolatedEnv({ BATON_SERVER: server.url }).env;
  await deployFiles(env, { "greet.yaml": GREET_YAML, "failing.yaml": FAILING_YAML, "raising.yaml": RAISING_YAML });
});

afterAll(async () => {
  await server?.stop();
});

describe("run", () => {
  it("prints only the instance id and remembers it as @last", async () => {
    const run = await cli(["run", "greet", "--input", '{"who": "Ann"}']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^[0-9a-f-]{36}\n$/);
    expect(lastInstance()).toBe(run.stdout.trim());
    const got = JSON.parse((await cli(["get", "@last", "--json"])).stdout);
    expect(got).toMatchObject({
      id: run.stdout.trim(),
      process: "greet",
      version: 1,
      status: "running",
      task: "hello",
      retry_count: 0,
    });
  });

  it("--key stores a business key that instances --key finds exactly, and --parent lists one parent's children", async () => {
    const keyed = (await cli(["run", "greet", "--set", "who=Kim", "--key", "A-4711"])).stdout.trim();
    await cli(["run", "greet", "--set", "who=Lu", "--key", "A-4712"]);
    const listed = await cli(["instances", "--key", "A-4711", "--json"]);
    expect(listed.code, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout).items.map((row: { id: string; key: string }) => [row.id, row.key])).toEqual([
      [keyed, "A-4711"],
    ]);
    const table = await cli(["instances", "--key", "A-4711"]);
    expect(table.stdout).toMatch(/KEY/);
    expect(table.stdout).toContain("A-4711");
    const none = await cli(["instances", "--parent", keyed, "--json"]);
    expect(JSON.parse(none.stdout).items, "a greet instance has no children").toEqual([]);
  });

  it("retry --where acts on every root the filters select; --dry-run lists them and changes nothing", async () => {
    const ids = [
      (await cli(["run", "failing", "--key", "bulk-7"])).stdout.trim(),
      (await cli(["run", "failing", "--key", "bulk-7"])).stdout.trim(),
    ].sort();
    const status = async () =>
      JSON.parse((await cli(["instances", "--key", "bulk-7", "--json"])).stdout).items.map(
        (row: { status: string }) => row.status,
      );
    for (let i = 0; i < 10 && (await status()).join() !== "failed,failed"; i++) await cli(["tick"]);
    expect(await status()).toEqual(["failed", "failed"]);
    const dry = await cli(["retry", "--where", "key=bulk-7,status=failed", "--dry-run"]);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toBe(`dry run: retry --where key=bulk-7,status=failed: matched 2\n  ${ids[0]}\n  ${ids[1]}\n`);
    expect(await status(), "a dry run changes nothing").toEqual(["failed", "failed"]);
    const done = await cli(["retry", "--where", "key=bulk-7,status=failed", "--limit", "1", "--json"]);
    expect(done.code, done.stderr).toBe(0);
    expect(JSON.parse(done.stdout)).toMatchObject({ dry_run: false, counts: { retried: 2 }, refused: [] });
    expect(await status()).toEqual(["running", "running"]);
    const both = await cli(["retry", "@last", "--where", "key=bulk-7"]);
    expect(both).toMatchObject({ code: 2, stderr: "error: give an instance id or --where, not both\n" });
  }, 90_000);

  it("reset puts a failed root back on a task; --where resets every root the filters select", async () => {
    const ids = [
      (await cli(["run", "failing", "--key", "reset-7"])).stdout.trim(),
      (await cli(["run", "failing", "--key", "reset-7"])).stdout.trim(),
    ];
    const status = async () =>
      JSON.parse((await cli(["instances", "--key", "reset-7", "--json"])).stdout)
        .items.map((row: { status: string }) => row.status)
        .sort();
    for (let i = 0; i < 10 && (await status()).join() !== "failed,failed"; i++) await cli(["tick"]);
    expect(await status()).toEqual(["failed", "failed"]);
    const one = await cli(["reset", "@last", "--to", "call"]);
    expect(one.code, one.stderr).toBe(0);
    expect(one.stdout).toBe(
      `${ids[1]}: reset to task call (visit 2, status running) with the state of its first entry (visit 1)\n`,
    );
    const unknown = await cli(["reset", ids[0]!, "--to", "nope"]);
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toContain('has no task "nope"');
    const dry = await cli(["reset", "--where", "key=reset-7,status=failed", "--to", "call", "--dry-run"]);
    expect(dry.stdout).toBe(`dry run: reset --where key=reset-7,status=failed: matched 1\n  ${ids[0]}\n`);
    const all = await cli(["reset", "--where", "key=reset-7,status=failed", "--to", "call", "--json"]);
    expect(JSON.parse(all.stdout)).toMatchObject({ counts: { reset: 1 }, ids: { reset: [ids[0]] }, refused: [] });
  }, 90_000);

  it("--json prints the start response", async () => {
    const run = await cli(["run", "greet@1", "--set", "who=Bo", "--json"]);
    expect(Object.keys(JSON.parse(run.stdout)).sort()).toEqual(["id", "process", "status", "version"]);
  });

  it("reads --input @file", async () => {
    const dir = fixtureDir({ "in.json": '{"who": "File"}' });
    expect((await cli(["run", "greet", "--input", "@in.json"], dir)).code).toBe(0);
  });

  it("--wait exits 0 and prints the output once completed", async () => {
    const run = await whileTicking(["run", "greet", "--set", "who=Cy", "--wait", "--timeout", "60s"]);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ said: "Hello, Cy" });
    expect(run.stderr).toMatch(/^started ([0-9a-f-]{36}) \(greet v1\)\n\1 completed \(greet v1, [\d.]+s\)\n$/);
  });

  it("--wait exits 1 printing the error of a failed instance", async () => {
    const run = await whileTicking(["run", "failing", "--wait"]);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe("");
    expect(run.stderr).toMatch(/^started [^\n]+\nerror: instance [0-9a-f-]{36} failed at task call: pre\.error: /);
  });

  it("--wait exits 1 for a raised instance; --json prints the final status view", async () => {
    const run = await whileTicking(["run", "raising", "--wait", "--json"]);
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout)).toMatchObject({
      status: "raised",
      error_code: "out_of_stock",
      error_message: "nothing left",
    });
  });

  it("--wait --timeout exits 2 when nothing advances it", async () => {
    const run = await cli(["run", "greet", "--set", "who=Slow", "--wait", "--timeout", "1s"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(
      /^started [^\n]+\nerror: timed out after 1\.0s waiting for instance [0-9a-f-]{36} \(running at task hello\); it keeps running/,
    );
  });

  it("refuses bad input with the server's reason, and an unknown process with exit 4", async () => {
    const invalid = await cli(["run", "greet", "--input", '{"who": 7}']);
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toMatch(/^error: invalid: the input does not match[^\n]*\n {2}input\.who: [^\n]+\n$/);
    expect(invalid.stderr.split("input.who").length, "the field problem is printed once").toBe(2);
    const unknown = await cli(["run", "nope"]);
    expect(unknown.code).toBe(4);
    expect(unknown.stderr).toMatch(/^error: not_found: /);
  });
});

describe("instances, get and logs", () => {
  it("lists with filters and follows every page with --all", async () => {
    const failed = JSON.parse((await cli(["instances", "--status", "failed", "--json"])).stdout);
    expect(failed.items.length).toBeGreaterThan(0);
    expect(failed.items.every((row: { status: string }) => row.status === "failed")).toBe(true);
    expect(failed.page).toMatchObject({ size: 20, order: "desc" });

    const raised = JSON.parse(
      (await cli(["instances", "--process", "raising", "--error-code", "out_of_stock", "--since", "1h", "--json"]))
        .stdout,
    );
    expect(raised.items.map((row: { process: string }) => row.process)).toEqual(["raising"]);

    const all = JSON.parse((await cli(["instances", "--limit", "2", "--all", "--json"])).stdout);
    const ids = all.items.map((row: { id: string }) => row.id);
    expect(ids.length).toBeGreaterThanOrEqual(6);
    expect(new Set(ids).size, "no row twice across pages").toBe(ids.length);

    const table = await cli(["instances", "--process", "greet", "--limit", "1"]);
    expect(table.stdout.split("\n")[0]).toMatch(/^ID\s+PROCESS\s+VERSION\s+STATUS/);
    expect(table.stderr).toMatch(/more not shown; use --all/);
  });

  it("sends every documented filter in a form the server accepts", async () => {
    const args = [
      "instances",
      "--status",
      "running,paused",
      "--process",
      "greet",
      "--version",
      "1",
      "--phase",
      "external",
      "--task",
      "hello",
    ];
    const run = await cli([...args, "--error-code", "x.y", "--children", "--since", "2026-01-01T00:00:00Z", "--json"]);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout).items).toEqual([]);
    const byTask = JSON.parse(
      (await cli(["instances", "--process", "greet", "--task", "hello", "--status", "running", "--json"])).stdout,
    );
    expect(byTask.items.length).toBeGreaterThan(0);
    expect(
      byTask.items.every((row: { task: string; status: string }) => row.task === "hello" && row.status === "running"),
    ).toBe(true);
  });

  it("--quiet keeps only the essential output", async () => {
    const run = await cli(["run", "greet", "--set", "who=Q", "--quiet"]);
    expect(run.stdout).toMatch(/^[0-9a-f-]{36}\n$/);
    const dir = fixtureDir({ "greet.yaml": GREET_YAML });
    expect(await cli(["deploy", "greet.yaml", "-q"], dir)).toEqual({ code: 0, stdout: "", stderr: "" });
    expect((await cli(["tick", "--advance", "1s", "--quiet"])).stdout).toBe("");
  });

  it("shows the detail view with state", async () => {
    const run = await whileTicking(["run", "greet", "--set", "who=Dee", "--wait"]);
    expect(run.code).toBe(0);
    const detail = await cli(["get", "@last", "--detail"]);
    expect(detail.stdout).toMatch(/^status: +completed$/m);
    expect(detail.stdout).toContain('"who": "Dee"');
    const json = JSON.parse((await cli(["get", "@last", "--detail", "--resolve", "--json"])).stdout);
    expect(json).toMatchObject({ status: "completed", state: { input: { who: "Dee" } } });
    expect(json).toHaveProperty("task_epoch");
    expect((await cli(["get", "00000000-0000-7000-8000-000000000000"])).code).toBe(4);
  });

  it("lists externalized values under objects and splices them back with --resolve", async () => {
    const who = "x".repeat(3000);
    const run = await whileTicking(["run", "greet", "--set", `who=${who}`, "--wait"]);
    expect(run.code, run.stderr).toBe(0);
    const detail = await cli(["get", "@last", "--detail"]);
    expect(detail.stdout).toMatch(/^objects:\n {2}state\.input\.who {2}\d+ bytes {2}[0-9a-f]{64}$/m);
    const resolved = JSON.parse((await cli(["get", "@last", "--resolve", "--json"])).stdout);
    expect(resolved.state.input.who).toBe(who);
    const ref = /state\.input\.who {2}\d+ bytes {2}([0-9a-f]{64})/.exec(detail.stdout)![1];
    expect(JSON.parse((await cli(["object", ref])).stdout)).toBe(who);
    expect((await cli(["object", "0".repeat(64)])).code).toBe(4);
  });

  it("prints logs oldest first, filters by level, and --json is the API's page", async () => {
    const logs = await cli(["logs", "@last"]);
    const lines = logs.stdout.trim().split("\n");
    expect(lines[0]).toMatch(/instance\.started/);
    expect(lines[lines.length - 1]).toMatch(/instance\.completed/);
    const warn = await cli(["logs", "@last", "--level", "warn", "--flat"]);
    expect(warn.stdout).not.toMatch(/ (DEBUG|INFO) /);
    const json = JSON.parse((await cli(["logs", "@last", "--json"])).stdout);
    expect(json.items[0]).toMatchObject({
      level: expect.any(String),
      event: expect.any(String),
      created_at: expect.any(String),
    });
    const all = JSON.parse((await cli(["logs", "@last", "--limit", "1", "--all", "--json"])).stdout);
    expect(
      all.items.map((entry: { id: string }) => entry.id),
      "--all pages through to the same entries",
    ).toEqual(json.items.map((entry: { id: string }) => entry.id));
  });

  it("--follow streams entries until the instance settles", async () => {
    const started = await cli(["run", "greet", "--set", "who=Eve"]);
    const id = started.stdout.trim();
    const follow = await whileTicking(["logs", id, "--follow"]);
    expect(follow.code, follow.stderr).toBe(0);
    expect(follow.stdout).toMatch(/instance\.started[\s\S]*instance\.completed/);
    const json = await whileTicking(["logs", id, "--follow", "--json"]);
    const entries = json.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(entries.map((entry: { event: string }) => entry.event)).toContain("instance.completed");
  });
});

describe("lifecycle", () => {
  it("pauses, resumes and cancels a tree, then refuses to resume it", async () => {
    const id = (await cli(["run", "greet", "--set", "who=Fay"])).stdout.trim();
    expect((await cli(["pause", "@last"])).stdout).toBe(`${id}: paused (1 instance, status paused)\n`);
    expect((await cli(["pause", id])).stdout).toBe(`${id} was not running; nothing to pause\n`);
    expect(JSON.parse((await cli(["resume", id, "--json"])).stdout)).toEqual({
      outcome: "resumed",
      status: "running",
      instances: 1,
    });
    expect((await cli(["cancel", id])).stdout).toBe(`${id}: cancelled (1 instance, status cancelled)\n`);
    expect((await cli(["cancel", id, "--json"])).stdout, "204: nothing live to cancel").toBe("null\n");
    const resume = await cli(["resume", id]);
    expect(resume.code).toBe(1);
    expect(resume.stderr).toMatch(/^error: conflict: /);
  });

  it("retries a failed instance where it died", async () => {
    const run = await whileTicking(["run", "failing", "--wait"]);
    expect(run.code).toBe(1);
    const retry = await cli(["retry", "@last"]);
    expect(retry.stdout).toMatch(/: retried \(1 instance, status running\)\n$/);
    await cli(["tick"]);
    expect(JSON.parse((await cli(["get", "@last", "--json"])).stdout)).toMatchObject({
      status: "failed",
      error_code: "pre.error",
    });
  });

  it("worker resolves a parked external task with what its command prints; signal is delivered or buffered", async () => {
    const approval = [
      "name: approval_cli",
      "input_schema: {type: object, properties: {approved: {type: boolean}}, required: [approved]}",
      "tasks:",
      "  - id: approve",
      "    action:",
      "      type: external",
      '      input: {approved: "$: input.approved"}',
      "      result_schema: {type: object, properties: {approved: {type: boolean}}, required: [approved]}",
      "",
    ].join("\n");
    expect((await cli(["deploy", "approval.yaml"], fixtureDir({ "approval.yaml": approval }))).code).toBe(0);
    const parkedId = (await cli(["run", "approval_cli", "--input", '{"approved": true}'])).stdout.trim();
    await cli(["tick"]);
    const worker = await cli(["worker", "--once", "--process", "approval_cli", "--exec", "cat"]);
    expect(worker, "cat answers the external_input, which fits result_schema").toEqual({
      code: 0,
      stdout: "resolved  approval_cli v1 task approve\n",
      stderr: "",
    });
    await cli(["tick"]);
    expect(JSON.parse((await cli(["get", parkedId, "--json"])).stdout)).toMatchObject({ status: "completed" });

    const early = (await cli(["run", "approval_cli", "--input", '{"approved": false}'])).stdout.trim();
    const buffered = await cli(["signal", early, "approve", "--result", '{"approved": true}']);
    expect(buffered).toEqual({ code: 0, stdout: `${early} task approve: buffered until the task waits\n`, stderr: "" });
    await cli(["tick"]);
    expect(
      JSON.parse((await cli(["get", early, "--json"])).stdout),
      "the buffered outcome answered the task as it armed",
    ).toMatchObject({ status: "completed" });

    const waiting = (await cli(["run", "approval_cli", "--input", '{"approved": false}'])).stdout.trim();
    await cli(["tick"]);
    const delivered = await cli(["signal", waiting, "approve", "--result", '{"approved": true}']);
    expect(delivered).toEqual({ code: 0, stdout: `${waiting} task approve: delivered\n`, stderr: "" });
    const unknownTask = await cli(["signal", waiting, "nope", "--result", "true"]);
    expect(unknownTask).toEqual({
      code: expect.any(Number),
      stdout: "",
      stderr: expect.stringMatching(/^error: not_found: [^\n]+\n$/),
    });
    expect(unknownTask.code).not.toBe(0);

    // --only-if-waiting and --task-epoch: refused (exit 1, nothing buffered) unless that visit waits now.
    const picky = (await cli(["run", "approval_cli", "--input", '{"approved": false}'])).stdout.trim();
    const notYet = await cli(["signal", picky, "approve", "--result", '{"approved": true}', "--only-if-waiting"]);
    expect(notYet).toEqual({
      code: 1,
      stdout: "",
      stderr: `error: conflict: task "approve" of instance ${picky} is not waiting now (the instance is running at task "approve"); with only_if_waiting nothing was delivered or kept for a later visit\n`,
    });
    await cli(["tick"]);
    const epoch = JSON.parse((await cli(["get", picky, "--detail", "--json"])).stdout).task_epoch;
    const approveVisit = (visit: number) =>
      cli(["signal", picky, "approve", "--result", '{"approved": true}', "--task-epoch", String(visit)]);
    const otherVisit = await approveVisit(epoch + 1);
    expect(otherVisit).toEqual({
      code: 1,
      stdout: "",
      stderr: `error: conflict: task "approve" of instance ${picky} waits in another visit (task_epoch ${epoch}) than the one this signal answers (task_epoch ${epoch + 1}); nothing was delivered or kept for a later visit\n`,
    });
    const badEpoch = await cli(["signal", picky, "approve", "--result", "{}", "--task-epoch", "two"]);
    expect(badEpoch).toEqual({
      code: 2,
      stdout: "",
      stderr: 'error: --task-epoch: expected a whole number from 0 to 2147483647 (a visit\'s task_epoch), got "two"\n',
    });
    const answered = await approveVisit(epoch);
    expect(answered).toEqual({ code: 0, stdout: `${picky} task approve: delivered\n`, stderr: "" });
  });

  it("upgrade moves a live instance and prints each move; a second upgrade from the old version exits 1 (409)", async () => {
    const stepper = (note: string) =>
      `name: stepper\ntasks:\n  - id: first\n    output: {note: ${note}}\n  - id: second\n    output: {note: ${note}}\n`;
    for (const note of ["one", "two"])
      expect((await cli(["deploy", "stepper.yaml"], fixtureDir({ "stepper.yaml": stepper(note) }))).code).toBe(0);
    const id = (await cli(["run", "stepper@1"])).stdout.trim();
    const run = await cli(["upgrade", id, "--to", "2"]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe(`${id}: upgraded v1 → v2\n  ${id}  stepper v1 → v2  at task first\n`);
    expect(JSON.parse((await cli(["get", id, "--json"])).stdout)).toMatchObject({ version: 2 });
    const again = await cli(["upgrade", id, "--from", "1", "--to", "2"]);
    expect(again).toEqual({
      code: 1,
      stdout: "",
      stderr: expect.stringMatching(/^error: conflict: [^\n]*runs version 2[^\n]*\n$/),
    });
    const same = await cli(["upgrade", id, "--to", "2", "--json"]);
    expect(JSON.parse(same.stdout)).toEqual({ upgraded: false, moves: null });
  });
});

// Last in the file: its instances wait for an hour and would show in the lists above.
describe("flow control", () => {
  it("baton waits groups the waiting by key; instances --waiting-for lists them; get --detail says why", async () => {
    await deployFiles(env, {
      "one-per-customer.yaml": `name: one_per_customer
input_schema:
  type: object
  properties: {customer: {type: string}}
  required: [customer]
concurrency: {key: "$: input.customer", limit: 1}
tasks:
  - id: hold
    action: {type: delay, for: 1h}
`,
    });
    for (let i = 0; i < 3; i++)
      expect((await cli(["run", "one_per_customer", "--input", '{"customer": "ada"}'])).code).toBe(0);
    await cli(["tick"]);
    await cli(["tick"]);
    const waits = await cli(["waits", "--process", "one_per_customer"]);
    expect(waits.code, waits.stderr).toBe(0);
    expect(waits.stdout).toMatch(/^\s+2\s+concurrency\s+process:one_per_customer\s+key "ada"\s+oldest since /);
    const listed = JSON.parse(
      (await cli(["instances", "--waiting-for", "concurrency", "--wait-key", "ada", "--json"])).stdout,
    );
    expect(listed.items ?? listed).toHaveLength(2);
    const id = (listed.items ?? listed)[0].id;
    const detail = await cli(["get", id, "--detail"]);
    expect(detail.stdout).toMatch(/waiting_for.*a slot of process:one_per_customer with key "ada" \(limit 1\)/);
    const bad = await cli(["instances", "--waiting-for", "nothing"]);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('--waiting-for: unknown reason "nothing"');
  });
});
