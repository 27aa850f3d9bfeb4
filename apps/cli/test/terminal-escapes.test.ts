import { startServer, type TestServer } from "@baton/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BatonRun, baton, isolatedEnv } from "./support/baton.js";
import { deployFiles } from "./support/fixtures.js";

// Text the server hands back — business keys, error messages, log entries, token labels, the
// server's own refusals — carrying what a terminal would obey: a title change (OSC 0), an OSC 8
// link, an OSC 52 clipboard write, a screen clear (CSI 2J), a carriage return, an 8-bit CSI
// (U+009B) and a right-to-left override. The CLI shows all of it escaped, on a terminal or not
// (docs/cli.md "Output").
const HOSTILE = [
  "\x1b]0;pwned\x07",
  "\x1b]8;;https://evil.example\x1b\\click\x1b]8;;\x1b\\",
  "\x1b]52;c;cm0gLXJmIH4=\x07",
  "\x1b[2J",
  "\rfake",
  "\u009b31m",
  "\u202e",
].join("|");

let server: TestServer;
let env: Record<string, string>;
const cli = (args: string[]): Promise<BatonRun> => baton(args, { env });

/** No character a terminal acts on, but newline (C0 but \n, DEL, C1, bidi overrides). */
const OBEYED = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

function expectShownNotObeyed(run: BatonRun, what: string) {
  const text = run.stdout + run.stderr;
  expect(text, `${what} reaches the terminal raw`).not.toMatch(OBEYED);
  expect(text, `${what} is shown, escaped`).toContain("\\u001b]0;pwned\\u0007");
}

beforeAll(async () => {
  server = await startServer();
  env = isolatedEnv({ BATON_SERVER: server.url }).env;
  await deployFiles(env, {
    "echo.yaml": `name: echo
input_schema: {type: object, properties: {msg: {type: string}}, required: [msg]}
tasks:
  - id: echo
    output: {msg: "$: input.msg"}
output: {msg: "$: outputs.echo.msg"}
`,
  });
});

afterAll(async () => {
  await server?.stop();
});

describe("text from the server, printed by the CLI", () => {
  let id: string;

  it("is escaped in run --wait's output, get, instances and logs", async () => {
    const run = await cli(["run", "echo", "--key", HOSTILE, "--set", `msg=${HOSTILE}`, "--wait"]);
    expect(run.code, run.stderr).toBe(0);
    expectShownNotObeyed(run, "run --wait");
    id = /started ([0-9a-f-]{36})/.exec(run.stderr)?.[1] ?? "";
    for (const args of [["get", "@last"], ["instances"], ["instances", "--key", HOSTILE], ["logs", "@last"]]) {
      const shown = await cli(args);
      expect(shown.code, shown.stderr).toBe(0);
      expectShownNotObeyed(shown, args.join(" "));
    }
  });

  it("is escaped in --json output too, which stays JSON meaning the same value", async () => {
    const shown = await cli(["--json", "get", "@last"]);
    expect(shown.stdout).not.toMatch(OBEYED);
    expect(JSON.parse(shown.stdout).output.msg).toBe(HOSTILE);
  });

  it("is escaped in token labels and in the server's refusals", async () => {
    expect((await cli(["tokens", "create", "--label", HOSTILE, "--perms", "read"])).code).toBe(0);
    expectShownNotObeyed(await cli(["tokens"]), "tokens");
    // The server quotes the id with JSON.stringify, which leaves C1 controls and bidi overrides raw.
    const refused = await cli(["get", `nope${HOSTILE}`]);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain("nope");
    expect(refused.stdout + refused.stderr, "an error quoting the id").not.toMatch(OBEYED);
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
  });
});
