import { randomUUID } from "node:crypto";
import {
  ApiError,
  type BatonClient,
  ConnectionError,
  type InstanceStatusView,
  type StartInstanceBody,
} from "@baton/actions";
import type { Command } from "commander";
import { versionOf } from "../channel-version.js";
import { CliError, UsageError } from "../cli-error.js";
import { act, collect, type ContextFactory, examples } from "../command-kit.js";
import type { Context } from "../context.js";
import { formatElapsed, parseDuration } from "../duration.js";
import { ExitCode } from "../exit-code.js";
import { buildInput } from "../input-values.js";
import { SETTLED_STATUSES } from "../instance-status.js";
import { rememberLastInstance } from "../last-instance.js";
import { formatJson } from "../output.js";
import { parseProcessRef } from "../process-ref.js";
import { createProgressLine } from "../progress-line.js";
import { colorStatus } from "../style.js";

export function registerRun(program: Command, makeContext: ContextFactory): void {
  const run = program
    .command("run")
    .summary("start an instance and print its id; --wait follows it to the end")
    .description(
      "Starts an instance of PROCESS (the latest version, PROCESS@VERSION, or PROCESS@CHANNEL for the version a channel points at) and prints its id, which @last then stands for. " +
        "--wait polls until the instance settles, with a live progress line on a terminal, and exits 0 completed (printing the output), " +
        "1 failed, raised or cancelled (printing the error), 2 when --timeout passes first (the instance keeps running).",
    )
    .argument("<process>", "PROCESS, PROCESS@VERSION or PROCESS@CHANNEL")
    .option("-i, --input <json>", "the input: a JSON object, or @file.json")
    .option(
      "-s, --set <key=value>",
      "set one input field (repeatable; dotted keys nest; the value is JSON when it parses, else a string)",
      collect,
    )
    .option(
      "-k, --key <key>",
      "a business key naming what the instance is about (an order number); `instances --key` finds it",
    )
    .option("-w, --wait", "wait until the instance settles")
    .option("-t, --timeout <duration>", "with --wait: give up after this long (30s, 5m, 1h; a bare number is seconds)")
    .action(
      act(makeContext, async (ctx, [reference], options) => {
        const ref = parseProcessRef(reference);
        const timeoutMs = options.timeout === undefined ? undefined : parseDuration(options.timeout, "--timeout");
        if (timeoutMs !== undefined && !options.wait) throw new UsageError("--timeout needs --wait");
        const input = await buildInput(options.input, options.set ?? [], ctx.io.cwd);
        const api = await ctx.api();
        const body: StartInstanceBody = { process: ref.process };
        const version = await versionOf(api, ref);
        if (version !== undefined) body.version = version;
        if (input !== undefined) body.input = input;
        if (options.key !== undefined) body.key = options.key;
        const started = await startOnce(ctx, api, body);
        await rememberLastInstance(ctx.io, started.id);
        if (!options.wait) {
          if (ctx.out.json) ctx.out.printJson(started);
          else ctx.out.print(started.id);
          return;
        }
        ctx.out.hint(`started ${started.id} (${started.process} v${started.version})`);
        await waitForInstance(ctx, started.id, timeoutMs);
      }),
    );
  examples(run, [
    "baton run orders --input '{\"order_id\": 7}'",
    "baton run orders@3 --input @order.json --wait --timeout 2m",
    "baton run orders@production --input @order.json",
    "baton run orders --set order_id=7 --set customer.tier=gold --wait --json",
  ]);
}

/** Attempts of one start whose answer is lost, and the pauses between them (docs/cli.md). */
const START_ATTEMPTS = 5;
const START_RETRY_MS = [500, 1000, 2000, 4000];

/**
 * Starts exactly one instance even when an answer is lost: every attempt carries the same
 * Idempotency-Key, so a retry of a start the server did commit answers that instance instead
 * of starting another. Retried: no answer at all (refused, reset, timed out) and 502/503/504
 * (a proxy or a database restart); anything else is the answer.
 */
async function startOnce(ctx: Context, api: BatonClient, body: StartInstanceBody) {
  const headers = { "Idempotency-Key": randomUUID() };
  for (let attempt = 1; ; attempt++) {
    try {
      return await api.call("startInstance", { body, headers });
    } catch (error) {
      const lost =
        error instanceof ConnectionError || (error instanceof ApiError && [502, 503, 504].includes(error.status));
      if (!lost || attempt >= START_ATTEMPTS) throw error;
      const waitMs = START_RETRY_MS[attempt - 1] ?? 4000;
      ctx.out.hint(
        `the start got no answer (${(error as Error).message}); retrying in ${waitMs} ms with the same Idempotency-Key`,
      );
      await ctx.io.sleep(waitMs);
    }
  }
}

const FIRST_POLL_MS = 200;
const MAX_POLL_MS = 1000;

async function waitForInstance(ctx: Context, id: string, timeoutMs: number | undefined): Promise<void> {
  const { io, out } = ctx;
  const api = await ctx.api();
  const start = io.now();
  const progress = createProgressLine(io.stderr, io.stderr.isTTY && !out.quiet && !out.json);
  let interval = FIRST_POLL_MS;
  let view: InstanceStatusView;
  try {
    for (;;) {
      view = await api.call("getInstance", { params: { id } });
      const elapsed = io.now() - start;
      if (SETTLED_STATUSES.has(view.status)) break;
      progress.update(
        `${id}  ${view.process} v${view.version}  ${colorStatus(out.style, view.status)}  task ${view.task}  ${formatElapsed(elapsed)}`,
      );
      if (timeoutMs !== undefined && elapsed >= timeoutMs) {
        progress.clear();
        throw new CliError(
          `timed out after ${formatElapsed(timeoutMs)} waiting for instance ${id} (${view.status} at task ${view.task}); it keeps running: baton get ${id}`,
          ExitCode.usage,
        );
      }
      await io.sleep(timeoutMs === undefined ? interval : Math.max(0, Math.min(interval, timeoutMs - elapsed)));
      interval = Math.min(MAX_POLL_MS, Math.round(interval * 1.5));
    }
  } finally {
    progress.clear();
  }
  const elapsed = formatElapsed(io.now() - start);
  if (out.json) out.printJson(view);
  if (view.status === "completed") {
    out.hint(`${id} completed (${view.process} v${view.version}, ${elapsed})`);
    if (!out.json && view.output !== undefined) out.print(formatJson(view.output));
    return;
  }
  throw new CliError(settledFailure(view), ExitCode.failed);
}

export function settledFailure(view: InstanceStatusView): string {
  // The stored message often repeats the task and code ('task "call": pre.error: …'); say each once.
  let message = view.error_message ?? "";
  for (const prefix of [`task ${JSON.stringify(view.task)}: `, `${view.error_code}: `])
    if (message.startsWith(prefix)) message = message.slice(prefix.length);
  const detail = view.error_code ? `: ${view.error_code}${message ? `: ${message}` : ""}` : "";
  if (view.status === "cancelled") return `instance ${view.id} was cancelled (at task ${view.task})`;
  return `instance ${view.id} ${view.status} at task ${view.task}${detail}`;
}
