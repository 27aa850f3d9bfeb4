import { hostname } from "node:os";
import { ApiError, CLAIM_WAIT_MS, ConnectionError, type ExternalTask } from "@baton/actions";
import { stringifyJson } from "@baton/expr";
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

interface WorkerOptions {
  exec: string;
  process?: string;
  task?: string;
  version?: number;
  workerId: string;
  concurrency: number;
  leaseMs?: number;
  pollMs: number;
  /** The claim's long-poll (wait_ms); 0 answers at once. */
  waitMs: number;
  once: boolean;
}

/** Without --wait: a long-running worker long-polls this long, so an idle one sends a claim every 20 s instead of every --poll. */
const DEFAULT_WAIT_MS = 20_000;

type Handled = "resolved" | "raised" | "released" | "lost" | "cancelled";

export function registerWorker(program: Command, makeContext: ContextFactory): void {
  const worker = program
    .command("worker")
    .summary("claim external tasks and answer them with a command")
    .description(
      "Claims external tasks (optionally only of a process, task or version), runs --exec with `sh -c` for each, and resolves the task with what the command prints, renewing the claims while commands run. " +
        `The command gets the task's external_input as JSON on stdin and BATON_PROCESS, BATON_VERSION, BATON_TASK, BATON_WORKER_ID in its environment. ` +
        `Exit 0: stdout (JSON; empty = null) is the result. Exit ${ERROR_OUTCOME_EXIT}: stdout is an error outcome {"code", "message"?, "data"?} declared in the task's raises. ` +
        "Any other exit releases the task so it can be claimed again. A claim lost to another worker, or whose instance was cancelled, stops its command. " +
        "Without --once it runs until interrupted; with --once it claims once, handles those tasks and exits (1 if any was not resolved).",
    )
    .requiredOption("-e, --exec <command>", "the command that answers one task")
    .option("-p, --process <process>", "only tasks of this process")
    .option("--task <task>", "only this task id")
    .option("--version <n>", "only this process version")
    .option("--worker-id <id>", "the worker id shown on claims", `${hostname()}:${process.pid}`)
    .option("-c, --concurrency <n>", "tasks handled at once", "1")
    .option("--lease <duration>", "claim lease (server default when omitted)")
    .option("--poll <duration>", "wait between claims when there is no work (after an empty long-poll: none)", "1s")
    .option(
      "--wait <duration>",
      `how long one claim waits on the server for work (long-poll, 0 to ${CLAIM_WAIT_MS.max / 1000}s; default ${DEFAULT_WAIT_MS / 1000}s, with --once 0)`,
    )
    .option("--once", "claim once, handle what was claimed, then exit")
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
          waitMs: waitOption(options.wait, Boolean(options.once)),
          once: Boolean(options.once),
        });
      }),
    );
  examples(worker, [
    "baton worker --process orders --task pack --exec ./pack.sh",
    "baton worker --exec 'jq \"{packed: true, items: (.items | length)}\"' --concurrency 4",
    "baton worker --task approve --exec ./approve.sh --once --json",
  ]);
}

function waitOption(value: string | undefined, once: boolean): number {
  if (value === undefined) return once ? 0 : DEFAULT_WAIT_MS;
  const ms = parseDuration(value, "--wait");
  if (ms > CLAIM_WAIT_MS.max)
    throw new UsageError(
      `--wait: "${value}" is longer than the server's limit of ${CLAIM_WAIT_MS.max / 1000}s; give 0 to ${CLAIM_WAIT_MS.max / 1000}s`,
    );
  return ms;
}

interface Job {
  task: ExternalTask;
  stop(reason: "lost" | "cancelled"): void;
  done: Promise<void>;
}

/** Retryable: the server may come back. Anything else (400, 401, 403, 404, 501…) ends the worker. */
function isTransient(error: unknown): boolean {
  return error instanceof ConnectionError || (error instanceof ApiError && error.status >= 500 && error.status !== 501);
}

async function runWorker(ctx: Context, options: WorkerOptions): Promise<void> {
  const api = await ctx.api();
  const { out, io } = ctx;
  const jobs = new Map<string, Job>();
  let renewBeforeMs = 10_000;
  let renewTimer: NodeJS.Timeout | undefined;
  let unresolved = 0;

  const report = (task: ExternalTask, handled: Handled, reason?: string) => {
    if (handled === "released" || handled === "lost") unresolved++;
    if (out.json) {
      out.print(
        stringifyJson({
          outcome: handled,
          process: task.process,
          version: task.version,
          task: task.task,
          ...(reason ? { reason } : {}),
        }),
      );
      return;
    }
    const line = `${handled.padEnd(9)} ${task.process} v${task.version} task ${task.task}${reason ? `: ${reason}` : ""}`;
    if (handled === "released" || handled === "lost") io.stderr.write(`${line}\n`);
    else out.info(line);
  };

  const scheduleRenewal = () => {
    if (renewTimer || jobs.size === 0) return;
    renewTimer = setTimeout(renew, Math.max(50, Math.floor(renewBeforeMs / 2)));
  };

  async function renew(): Promise<void> {
    renewTimer = undefined;
    const tokens = [...jobs.keys()];
    if (tokens.length === 0) return;
    try {
      const body = { worker_id: options.workerId, tokens, ...(options.leaseMs ? { lease_ms: options.leaseMs } : {}) };
      const answer = await api.call("renewExternalTasks", { body });
      renewBeforeMs = answer.renew_before_ms;
      for (const token of answer.lost) jobs.get(token)?.stop("lost");
      for (const token of answer.cancelled) jobs.get(token)?.stop("cancelled");
    } catch (error) {
      io.stderr.write(
        `warning: renewing claims failed (${reportError(error).lines[0].replace(/^error: /, "")}); retrying\n`,
      );
    }
    scheduleRenewal();
  }

  async function release(task: ExternalTask): Promise<void> {
    try {
      await api.call("releaseExternalTask", { body: { token: task.token } });
    } catch {
      // The lease then expires on its own; the task is claimable again after it.
    }
  }

  async function handle(
    task: ExternalTask,
    stopped: () => "lost" | "cancelled" | undefined,
    signal: AbortSignal,
  ): Promise<void> {
    const env = {
      ...io.env,
      BATON_PROCESS: task.process,
      BATON_VERSION: String(task.version),
      BATON_TASK: task.task,
      BATON_WORKER_ID: options.workerId,
    };
    const run = await runTaskCommand(options.exec, stringifyJson(task.external_input ?? null), env, io.cwd, signal);
    const stop = stopped();
    if (stop === "lost") return report(task, "lost", "another worker holds the claim now; the command was stopped");
    if (stop === "cancelled") {
      await release(task);
      return report(task, "cancelled", "the instance no longer wants this task; the command was stopped");
    }
    const outcome = taskOutcome(run);
    if (outcome.kind === "release") {
      await release(task);
      return report(task, "released", outcome.reason);
    }
    try {
      const body =
        outcome.kind === "result"
          ? { token: task.token, result: outcome.result }
          : { token: task.token, error: outcome.error };
      await api.call("resolveExternalTask", { body });
      report(
        task,
        outcome.kind === "result" ? "resolved" : "raised",
        outcome.kind === "error" ? outcome.error.code : undefined,
      );
    } catch (error) {
      await release(task);
      report(
        task,
        "released",
        `the server refused the answer: ${reportError(error)
          .lines.join(" ")
          .replace(/^error: /, "")}`,
      );
    }
  }

  function start(task: ExternalTask): Job {
    const controller = new AbortController();
    let stopReason: "lost" | "cancelled" | undefined;
    const job: Job = {
      task,
      stop(reason) {
        stopReason ??= reason;
        controller.abort();
      },
      done: Promise.resolve(),
    };
    job.done = handle(task, () => stopReason, controller.signal).finally(() => jobs.delete(task.token));
    jobs.set(task.token, job);
    return job;
  }

  let idleWaits = 0;
  try {
    for (;;) {
      let claimed = 0;
      if (jobs.size < options.concurrency) {
        try {
          const body = {
            worker_id: options.workerId,
            limit: options.concurrency - jobs.size,
            ...(options.leaseMs ? { lease_ms: options.leaseMs } : {}),
            ...(options.process ? { process: options.process } : {}),
            ...(options.task ? { task: options.task } : {}),
            ...(options.version ? { version: options.version } : {}),
            ...(options.waitMs > 0 ? { wait_ms: options.waitMs } : {}),
          };
          const answer = await api.call("claimExternalTasks", { body });
          renewBeforeMs = answer.renew_before_ms;
          for (const task of answer.items) start(task);
          claimed = answer.items.length;
          idleWaits = 0;
          scheduleRenewal();
        } catch (error) {
          if (options.once || !isTransient(error)) throw error;
          // The server is down or failing: keep going, slower, and say so once per streak.
          if (idleWaits++ === 0)
            io.stderr.write(
              `warning: claiming failed (${reportError(error).lines[0].replace(/^error: /, "")}); retrying\n`,
            );
        }
      }
      if (options.once) {
        await Promise.all([...jobs.values()].map((job) => job.done));
        break;
      }
      // An empty long-poll already waited on the server: claim again at once.
      const waited = claimed === 0 && idleWaits === 0 && options.waitMs > 0;
      if ((claimed === 0 && !waited) || jobs.size >= options.concurrency) {
        const backoff = Math.min(options.pollMs * 2 ** Math.min(idleWaits, 5), 60_000);
        await Promise.race([
          io.sleep(idleWaits > 0 ? backoff : options.pollMs),
          ...[...jobs.values()].map((job) => job.done),
        ]);
      }
    }
  } finally {
    if (renewTimer) clearTimeout(renewTimer);
  }
  if (unresolved > 0) {
    throw new CliError(
      `${unresolved} claimed task${unresolved === 1 ? " was" : "s were"} not resolved`,
      ExitCode.failed,
    );
  }
}
