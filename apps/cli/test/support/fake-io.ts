import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { stringifyJson } from "@baton/expr";
import type { CliIo } from "../../src/cli-io.js";
import { runCli } from "../../src/run-cli.js";

export interface FakeRun {
  code: number;
  stdout: string;
  stderr: string;
}

export interface FakeIoOptions {
  fetch?: typeof fetch;
  env?: Record<string, string | undefined>;
  cwd?: string;
  tty?: boolean;
  columns?: number;
  /** Start of the fake clock; sleep() advances it instantly. */
  now?: number;
}

/** Runs the CLI in-process with captured output, a fake clock and private XDG directories. */
export async function runInProcess(argv: string[], options: FakeIoOptions = {}): Promise<FakeRun> {
  let stdout = "";
  let stderr = "";
  let clock = options.now ?? 1_700_000_000_000;
  const home = mkdtempSync(path.join(tmpdir(), "baton-cli-home-"));
  const io: CliIo = {
    stdout: { write: (text) => void (stdout += text), isTTY: Boolean(options.tty), columns: options.columns },
    stderr: { write: (text) => void (stderr += text), isTTY: Boolean(options.tty), columns: options.columns },
    env: { XDG_CONFIG_HOME: path.join(home, "config"), XDG_STATE_HOME: path.join(home, "state"), ...options.env },
    cwd: options.cwd ?? home,
    homedir: home,
    fetch: options.fetch,
    now: () => clock,
    sleep: async (ms) => {
      clock += ms;
    },
  };
  const code = await runCli(argv, io);
  return { code, stdout, stderr };
}

export interface Recorded {
  method: string;
  url: URL;
  body: unknown;
  headers: Headers;
}

/** A fetch that answers from `handler` and records every request. */
export function fakeFetch(handler: (request: Recorded) => { status?: number; body?: unknown } | undefined): {
  fetch: typeof fetch;
  calls: Recorded[];
} {
  const calls: Recorded[] = [];
  const fetchImpl = (async (input: string | URL | Request, init?: RequestInit) => {
    const url = new URL(String(input));
    const text = typeof init?.body === "string" ? init.body : undefined;
    const request: Recorded = {
      method: init?.method ?? "GET",
      url,
      body: text ? JSON.parse(text) : undefined,
      headers: new Headers(init?.headers),
    };
    calls.push(request);
    const answer = handler(request) ?? {
      status: 404,
      body: { code: "not_found", error: `no fake route for ${request.method} ${url.pathname}` },
    };
    const status = answer.status ?? 200;
    const body =
      answer.body === undefined ? null : typeof answer.body === "string" ? answer.body : stringifyJson(answer.body);
    return new Response(status === 204 ? null : body, {
      status,
      headers: body === null ? {} : { "content-type": "application/json" },
    });
  }) as typeof fetch;
  return { fetch: fetchImpl, calls };
}
