import { startServer, type TestServer } from "@baton/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BatonRun, baton, isolatedEnv } from "./support/baton.js";
import { fixtureDir } from "./support/fixtures.js";

let server: TestServer;
let env: Record<string, string>;
const cli = (args: string[], cwd?: string): Promise<BatonRun> => baton(args, { env, cwd });

const REPORT_WITH_SCHEDULE = `name: report
input_schema:
  type: object
  properties: {day: {type: string}}
  required: [day]
tasks:
  - id: build
    output: {day: "$: input.day"}
---
kind: schedule
name: nightly-report
process: report
cron: ["0 2 * * *"]
time_zone: Europe/Berlin
input: {day: "$: schedule.fire_time"}
`;

beforeAll(async () => {
  server = await startServer({ args: ["--poll", "0"] });
  env = isolatedEnv({ BATON_SERVER: server.url }).env;
});
afterAll(async () => {
  await server?.stop();
});

describe("schedules", () => {
  it("deploys a definition and its schedule from one YAML file, then lists, triggers, backfills, pauses and deletes it", async () => {
    const dir = fixtureDir({ "report.yaml": REPORT_WITH_SCHEDULE });
    const deployed = await cli(["deploy", "report.yaml"], dir);
    expect(deployed).toEqual({ code: 0, stdout: "report v1 (new)\nschedule nightly-report (created)\n", stderr: "" });
    const again = await cli(["deploy", "report.yaml"], dir);
    expect(again.stdout).toBe("report v1 (unchanged)\nschedule nightly-report (replaced)\n");
    const list = await cli(["schedules"]);
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toMatch(/nightly-report\s+report \(latest\)\s+0 2 \* \* \* Europe\/Berlin/);
    const trigger = await cli(["schedules", "trigger", "nightly-report"]);
    expect(trigger.stdout).toMatch(/trigger\s+started [0-9a-f-]{36}/);
    const backfill = await cli([
      "schedules",
      "backfill",
      "nightly-report",
      "--from",
      "2026-01-01T00:00:00Z",
      "--to",
      "2026-01-02T12:00:00Z",
    ]);
    expect(backfill.stdout.trim().split("\n")).toHaveLength(2);
    const show = await cli(["schedules", "show", "nightly-report"]);
    expect(show.stdout).toMatch(/^nightly-report: report \(latest\), 0 2 \* \* \* Europe\/Berlin/);
    expect(show.stdout).toMatch(/last fires:/);
    expect((await cli(["schedules", "pause", "nightly-report"])).stdout).toBe("nightly-report: paused\n");
    expect((await cli(["schedules", "delete", "nightly-report"])).stdout).toBe("deleted schedule nightly-report\n");
  });

  it("reports a schedule the server refuses with the field and exit code 1", async () => {
    const dir = fixtureDir({
      "bad.yaml": "kind: schedule\nname: bad\nprocess: report\ncron: ['0 2 * *']\ninput: {day: x}\n",
    });
    const run = await cli(["deploy", "bad.yaml"], dir);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/cron\[0\]/);
  });

  it("compat between channels prints a warning for a bound schedule whose input the new version refuses", async () => {
    const dir = fixtureDir({
      "v2.yaml":
        "name: report\ninput_schema: {type: object, properties: {day: {type: integer}}, required: [day]}\ntasks: [{id: build}]\n",
      "bound.yaml":
        'kind: schedule\nname: bound\nprocess: report\nchannel: prod\nevery: 1h\npaused: true\ninput: {day: "$: schedule.fire_time"}\n',
    });
    expect((await cli(["channels", "set", "report", "prod", "1"])).code).toBe(0);
    expect((await cli(["deploy", "bound.yaml"], dir)).code).toBe(0);
    expect((await cli(["deploy", "v2.yaml", "--channel", "next"], dir)).code).toBe(0);
    const run = await cli(["compat", "--from", "prod", "--to", "next"]);
    expect(run.stdout).toMatch(
      /warning: schedule "bound" would start version 2 of "report" on "prod" with an input it refuses/,
    );
  });
});
