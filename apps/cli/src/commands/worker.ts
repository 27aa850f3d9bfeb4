import { hostname } from "node:os";
import { CLAIM_WAIT_MS } from "@baton/actions";
import { stringifyJson } from "@baton/expr";
import { createWorker, type ExternalTask, raise, type WorkerEvent } from "@baton/worker";
import type { Command } from "commander";
import { CliError, UsageError } from "../cli-error.js";
import { act, type ContextFactory, examples } from "../command-kit.js";
import type { Context } from "../context.js";
import { parseDuration } from "../duration.js";
import { reportError } from "../error-report.js";
import { ExitCode } from "../exit-code.js";
import { parsePositiveInteger } from "../process-ref.js";
import { runTaskCommand } from "../task-command.js";
import { ERROR_OUTCOME_EXIT, taskOutcome } from "../task-outcome.js";
import { cliVersion } from "../version.js";

interface WorkerOptions {
  exec: string;
  process?: string;
  task?: string;
  version?: number;
  workerId: string;
  concurrency: number;
  leaseMs?: number;
  pollMs: number;
  /** The claim's long-poll (`wait_ms`); undefined: the SDK's default. */
  waitMs?: number;
  once: boolean;
  /** Batch answers that are ready together (resolve-batch); false with --no-batch. */
  batchResolves: boolean;
}

export function registerWorker(program: Command, makeContext: ContextFactory): void {
  const worker = program
    .command("worker")
    .summary("claim external tasks and answer them with a command")
    .description(
      "Claims external tasks (optionally only of a process, task or version), runs --exec with `sh -c` for each, and resolves the task with what the command prints, renewing the claims while commands run. " +
        `The command gets the task's external_input as JSON on stdin and BATON_PROCESS, BATON_VERSION, BATON_TASK, BATON_WORKER_ID (and BATON_INSTANCE_ID, BATON_TASK_EPOCH, BATON_ATTEMPT, BATON_KEY and TRACEPARENT when the server sends them) in its environment; its stderr is streamed to the worker's stderr, each line prefixed with the task. ` +
        `Exit 0: stdout (JSON; empty = null) is the result. Exit ${ERROR_OUTCOME_EXIT}: stdout is an error outcome {"code", "message"?, "data"?} declared in the task's raises. ` +
        "Any other exit releases the task so it can be claimed again. A claim lost to another worker, or whose instance was cancelled, stops its command. " +
        "Without --once it runs until interrupted (SIGTERM: running commands get 30 s to finish, then are stopped and their tasks released); with --once it claims once, handles those tasks and exits (1 if any was not resolved).",
    )
    .requiredOption("-e, --exec <command>", "the command that answers one task")
    .option("-p, --process <process>", "only tasks of this process")
    .option("--task <task>", "only this task id")
    .option("--version <n>", "only this process version")
    .option("--worker-id <id>", "the worker id shown on claims", `${hostname()}:${process.pid}`)
    .option("-c, --concurrency <n>", "tasks handled at once", "1")
    .option("--lease <duration>", "claim lease (server default when omitted)")
    .option("--poll <duration>", "wait between claims when there is no work", "1s")
    .option(
      "--wait <duration>",
      `how long one claim waits on the server for work (long-poll, 0 to ${CLAIM_WAIT_MS.max / 1000}s; default 20s, none with --once)`,
    )
    .option("--once", "claim once, handle what was claimed, then exit")
    .option("--no-batch", "resolve each task in its own call instead of batching answers that are ready together")
    .action(
      act(makeContext, async (ctx, _args, options) => {
        await runWorker(ctx, {
          exec: options.exec,
          process: options.process,
          task: options.task,
          version: options.version === undefined ? undefined : parsePositiveInteger(options.version, "--version"),
          workerId: options.workerId,
          concurrency: parsePositiveInteger(options.concurrency, "--concurrency"),
          leaseMs: options.lease === undefined ? undefined : parseDuration(options.lease, "--lease"),
          pollMs: parseDuration(options.poll, "--poll"),
          waitMs: options.wait === undefined ? undefined : waitOption(options.wait),
          once: Boolean(options.once),
          batchResolves: options.batch !== false,
        });
      }),
    );
  examples(worker, [
    "baton worker --process orders --task pack --exec ./pack.sh",
    "baton worker --exec 'jq \"{packed: true, items: (.items | length)}\"' --concurrency 4",
    "baton worker --task approve --exec ./approve.sh --once --json",
  ]);
}

function waitOption(value: string): number {
  const ms = parseDuration(value, "--wait");
  if (ms > CLAIM_WAIT_MS.max)
    throw new UsageError(
      `--wait: "${value}" is longer than the server's limit of ${CLAIM_WAIT_MS.max / 1000}s; give 0 to ${CLAIM_WAIT_MS.max / 1000}s`,
    );
  return ms;
}

/** A command outcome that is not an answer: the SDK releases the task and reports `reason`. */
class Release extends Error {}

const withoutPrefix = (error: unknown) =>
  reportError(error)
    .lines.join(" ")
    .replace(/^error: /, "");

/** The worker loop of @baton/worker (docs/worker.md), each task answered by `--exec`. */
async function runWorker(ctx: Context, options: WorkerOptions): Promise<void> {
  const connection = await ctx.connection();
  const { out, io } = ctx;
  let unresolved = 0;
  let sequence = 0;

  const report = (task: ExternalTask, outcome: string, reason?: string) => {
    if (outcome === "released" || outcome === "lost") unresolved++;
    if (out.json) {
      out.print(
        stringifyJson({
          outcome,
          process: task.process,
          version: task.version,
          task: task.task,
          ...(reason ? { reason } : {}),
        }),
      );
      return;
    }
    const line = `${outcome.padEnd(9)} ${task.process} v${task.version} task ${task.task}${reason ? `: ${reason}` : ""}`;
    if (outcome === "released" || outcome === "lost") io.stderr.write(`${line}\n`);
    else out.info(line);
  };

  const onEvent = (event: WorkerEvent) => {
    switch (event.type) {
      case "resolved":
        return report(event.task, "resolved");
      case "raised":
        return report(event.task, "raised", event.code);
      case "released":
        return report(event.task, "released", event.error instanceof Release ? event.error.message : event.reason);
      case "lost":
        return report(event.task, "lost", "another worker holds the claim now; the command was stopped");
      case "cancelled":
        return report(event.task, "cancelled", "the instance no longer wants this task; the command was stopped");
      case "warning":
        return io.stderr.write(`warning: ${event.error ? withoutPrefix(event.error) : event.message}\n`);
    }
  };

  const worker = createWorker({
    server: connection.server,
    token: connection.token,
    fetch: io.fetch,
    userAgent: `baton-cli/${cliVersion()}`,
    workerId: options.workerId,
    process: options.process,
    task: options.task,
    version: options.version,
    concurrency: options.concurrency,
    leaseMs: options.leaseMs,
    pollMs: Math.max(1, options.pollMs),
    waitMs: options.waitMs,
    maxPollMs: Math.max(options.pollMs, 60_000),
    once: options.once,
    batchResolves: options.batchResolves,
    // Ctrl-C keeps its meaning (exit 130, commands stopped: main.ts); SIGTERM stops gracefully.
    stopSignals: ["SIGTERM"],
    onEvent,
    handler: async (task, { signal, workerId }) => {
      const label = `${task.process}/${task.task}#${++sequence}`;
      const env = {
        ...io.env,
        BATON_PROCESS: task.process,
        BATON_VERSION: String(task.version),
        BATON_TASK: task.task,
        BATON_WORKER_ID: workerId,
        // Absent when the server's claim does not carry them (a server before these extensions).
        ...(task.instance_id === undefined
          ? {}
          : {
              BATON_INSTANCE_ID: task.instance_id,
              BATON_TASK_EPOCH: String(task.task_epoch),
              BATON_ATTEMPT: String(task.attempt),
              ...(task.key === null ? {} : { BATON_KEY: task.key }),
            }),
        // The instance's trace context when the server traces (docs/tracing.md "Workers"): the
        // variable OpenTelemetry's environment-carrier convention reads.
        ...(task.traceparent === undefined ? {} : { TRACEPARENT: task.traceparent }),
      };
      const input = stringifyJson(task.external_input ?? null);
      const run = await runTaskCommand(options.exec, input, env, io.cwd, signal, (line) =>
        io.stderr.write(`[${label}] ${line}\n`),
      );
      if (signal.aborted) throw signal.reason;
      const outcome = taskOutcome(run);
      if (outcome.kind === "release") throw new Release(outcome.reason);
      if (outcome.kind === "error") return raise(outcome.error.code, outcome.error);
      return outcome.result;
    },
  });
  await worker.run();
  if (unresolved > 0) {
    throw new CliError(
      `${unresolved} claimed task${unresolved === 1 ? " was" : "s were"} not resolved`,
      ExitCode.failed,
    );
  }
}
