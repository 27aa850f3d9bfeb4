import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { baton } from "./baton.js";

/** Writes files into a fresh temp directory and returns it. */
export function fixtureDir(files: Record<string, string>): string {
  const dir = mkdtempSync(path.join(tmpdir(), "baton-fixtures-"));
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(dir, name), text);
  return dir;
}

/** `baton deploy` of `files` (written to a fresh directory) as `env` says; throws with its stderr unless it succeeds. */
export async function deployFiles(env: Record<string, string>, files: Record<string, string>): Promise<void> {
  const deployed = await baton(["deploy", "."], { env, cwd: fixtureDir(files) });
  if (deployed.code !== 0) throw new Error(`deploy failed: ${deployed.stderr}`);
}

/** A routing-only process with an input schema: completes in one engine round. */
export const GREET_YAML = `# greet: say hello
name: greet
input_schema:
  type: object
  properties: {who: {type: string}}
  required: [who]
tasks:
  - id: hello
    output: {said: "Hello, \${ input.who }"}
output: {said: "$: outputs.hello.said"}
`;

/** Fails on its first task: the fetch can never connect (pre.error). */
export const FAILING_YAML = `name: failing
tasks:
  - id: call
    action: {type: fetch, url: "http://127.0.0.1:1/never", method: get}
    output: {status: "$: self.status"}
`;

/** Ends raised with an authored code. */
export const RAISING_YAML = `name: raising
tasks:
  - id: check
    output: {checked: true}
    switch:
      - raise: {code: out_of_stock, message: "nothing left"}
`;
