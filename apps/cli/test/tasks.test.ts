import { startServer, type TestServer } from "@baton/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BatonRun, baton, isolatedEnv } from "./support/baton.js";
import { deployFiles } from "./support/fixtures.js";

// `baton tasks` against a real server, and tables piped in full. The server runs with --poll 0:
// instances park only on `baton tick`, so every state is reached deterministically.
let server: TestServer;
let env: Record<string, string>;
const cli = (args: string[], cwd?: string): Promise<BatonRun> => baton(args, { env, cwd });

/** Long codes, so that the definitions table is wider than 80 columns. */
const RAISES = ["rejected_by_the_approver", "withdrawn_by_the_requester", "escalated_to_the_board"];
const REVIEW_YAML = [
  "name: review_cli",
  "input_schema: {type: object, properties: {doc: {type: string}}}",
  "tasks:",
  "  - id: approve",
  "    action:",
  "      type: external",
  '      input: {doc: "$: input.doc"}',
  "      result_schema: {type: object, properties: {ok: {type: boolean}}, required: [ok]}",
  `    raises: {${RAISES.map((code) => `${code}: null`).join(", ")}}`,
  "",
].join("\n");
const OTHER_YAML = REVIEW_YAML.replace("name: review_cli", "name: other_cli");

/** Starts an instance of `process` and ticks until its task waits; returns its id. */
async function parked(process: string): Promise<string> {
  const id = (await cli(["run", process, "--input", '{"doc": "memo"}'])).stdout.trim();
  await cli(["tick"]);
  return id;
}

const tasksJson = async (args: string[]) => JSON.parse((await cli(["tasks", ...args, "--json"])).stdout);

beforeAll(async () => {
  server = await startServer({ args: ["--poll", "0"] });
  env = isolatedEnv({ BATON_SERVER: server.url }).env;
  await deployFiles(env, { "review.yaml": REVIEW_YAML, "other.yaml": OTHER_YAML });
});

afterAll(async () => {
  await server?.stop();
});

describe("tasks", () => {
  it("lists waiting tasks oldest first with each visit's task_epoch, whole when piped, and --json is the API's page", async () => {
    const first = await parked("review_cli");
    const second = await parked("other_cli");
    const page = await tasksJson([]);
    expect(page.items.map((item: { instance_id: string }) => item.instance_id)).toEqual([first, second]);
    const direct = await fetch(`${server.url}/api/external-tasks`).then((response) => response.json());
    expect(page, "--json prints the API's response").toEqual(direct);

    const table = await cli(["tasks"]);
    expect(table.code, table.stderr).toBe(0);
    const lines = table.stdout.trimEnd().split("\n");
    expect(
      lines.map((line) => line.split(/ {2,}/)),
      "every column whole though wider than 80 (stdout is a pipe)",
    ).toEqual([
      ["INSTANCE", "PROCESS", "VERSION", "TASK", "TASK_EPOCH", "STATUS", "WAITING SINCE"],
      ...page.items.map((item: Record<string, string | number>) => [
        item.instance_id,
        item.process,
        `v${item.version}`,
        item.task,
        String(item.task_epoch),
        item.status,
        item.waiting_since,
      ]),
    ]);
    expect(lines[1]!.length).toBeGreaterThan(80);
    for (const id of [first, second]) await cli(["cancel", id]);
  });

  it("filters by process, version, task, claim and instance, and its task_epoch answers that visit with signal", async () => {
    const held = await parked("review_cli");
    const free = await parked("review_cli");
    const ids = async (args: string[]) =>
      (await tasksJson(args)).items.map((item: { instance_id: string }) => item.instance_id);
    const claim = await fetch(`${server.url}/api/external-tasks/claim`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ worker_id: "bot-7", process: "review_cli", limit: 1, lease_ms: 600_000 }),
    }).then((response) => response.json() as Promise<{ items: { process: string }[] }>);
    expect(claim.items.map((item) => item.process)).toEqual(["review_cli"]);
    // The claim takes the oldest park.
    expect(await ids(["--process", "review_cli", "--claimed"])).toEqual([held]);
    expect(await ids(["--process", "review_cli", "--unclaimed"])).toEqual([free]);
    expect(await ids(["-p", "review_cli", "--version", "v1", "--task", "approve"])).toEqual([held, free]);
    expect(await ids(["--process", "review_cli", "--version", "2"])).toEqual([]);
    expect(await ids(["--instance", "@last"]), "@last is the last run").toEqual([free]);
    const claimedRow = (await cli(["tasks", "--instance", held])).stdout.split("\n");
    expect(claimedRow[0]).toMatch(/^INSTANCE +PROCESS +VERSION +TASK +TASK_EPOCH +STATUS +WAITING SINCE +CLAIMED BY$/);
    expect(claimedRow[1]).toMatch(new RegExp(`^${held} +review_cli +v1 +approve +\\d+ +running +\\S+ +bot-7$`));
    expect(await cli(["tasks", "--process", "nobody"])).toEqual({ code: 0, stdout: "no waiting tasks\n", stderr: "" });

    const [{ task_epoch: epoch }] = (await tasksJson(["--instance", free])).items;
    const stale = await cli(["signal", free, "approve", "--result", '{"ok": true}', "--task-epoch", `${epoch + 1}`]);
    expect(stale.code, "another visit than the one listed").toBe(1);
    const answered = await cli(["signal", free, "approve", "--result", '{"ok": true}', "--task-epoch", `${epoch}`]);
    expect(answered).toEqual({ code: 0, stdout: `${free} task approve: delivered\n`, stderr: "" });
    expect(await ids(["--instance", free]), "the answered task no longer waits").toEqual([]);
    await cli(["cancel", held]);
  });

  it("refuses contradictory or malformed filters before any call (exit 2)", async () => {
    expect(await cli(["tasks", "--claimed", "--unclaimed"])).toEqual({
      code: 2,
      stdout: "",
      stderr: "error: give --claimed or --unclaimed, not both\n",
    });
    expect(await cli(["tasks", "--version", "latest"])).toEqual({
      code: 2,
      stdout: "",
      stderr: 'error: invalid version in --version: expected a positive integer like 3, got "latest"\n',
    });
  });
});

describe("piped tables", () => {
  it("prints the definitions table whole when stdout is not a terminal", async () => {
    const listed = await cli(["definitions", "review_cli"]);
    expect(listed.code, listed.stderr).toBe(0);
    const [header, row] = listed.stdout.split("\n");
    expect(header).toMatch(/^PROCESS +VERSION +CREATED +RAISES$/);
    expect(row).toMatch(new RegExp(`^review_cli +v1 +\\S+Z +${[...RAISES].sort().join(", ")}$`));
    expect(row!.length).toBeGreaterThan(80);
  });
});
