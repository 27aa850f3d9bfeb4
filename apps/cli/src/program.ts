import { Command, Help, Option } from "commander";
import type { CliIo } from "./cli-io.js";
import type { ContextFactory } from "./command-kit.js";
import { registerChannels, registerPromote } from "./commands/channels.js";
import { registerCompat } from "./commands/compat.js";
import { registerDebug } from "./commands/debug.js";
import { registerDefinitions } from "./commands/definitions.js";
import { registerDeploy } from "./commands/deploy.js";
import { registerGet } from "./commands/get.js";
import { registerInstances } from "./commands/instances.js";
import { registerLifecycle } from "./commands/lifecycle.js";
import { registerLogs } from "./commands/logs.js";
import { registerReset } from "./commands/reset.js";
import { registerOpenApi } from "./commands/openapi.js";
import { registerRun } from "./commands/run.js";
import { registerSchedules } from "./commands/schedules.js";
import { registerEvents } from "./commands/events.js";
import { registerSession } from "./commands/session.js";
import { registerSignal } from "./commands/signal.js";
import { registerTasks } from "./commands/tasks.js";
import { registerTokens } from "./commands/tokens.js";
import { registerValidate } from "./commands/validate.js";
import { registerWaits } from "./commands/waits.js";
import { registerWhoami } from "./commands/whoami.js";
import { registerWorker } from "./commands/worker.js";
import { DEFAULT_SERVER } from "./connection.js";

// `--version` is not a commander option: commander would also take it after a subcommand and so
// swallow `baton instances --version 3`. runCli answers it before parsing; this only lists it.
const VERSION_OPTION = new Option("-V, --version", "print the CLI's version");

export function buildProgram(io: CliIo, makeContext: ContextFactory): Command {
  const program = new Command("baton");
  program
    .usage("[options] <command>")
    .description("baton: deploy, promote and operate Baton processes from a terminal or CI. A client of the Baton API.")
    .exitOverride()
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
      outputError: (text, write) => write(text),
    })
    .configureHelp({
      helpWidth: io.stdout.columns && io.stdout.isTTY ? io.stdout.columns : 80,
      visibleOptions(command) {
        const options = Help.prototype.visibleOptions.call(this, command);
        return command === program ? [VERSION_OPTION, ...options] : options;
      },
    })
    .showHelpAfterError("(run the command with --help for usage)")
    .option("--server <url>", `the Baton server (env BATON_SERVER, then baton login; default ${DEFAULT_SERVER})`)
    .option("--token <token>", "an svc_sk_ API token (env BATON_TOKEN, then baton login)")
    .option("--json", "print the API's JSON responses (stable field names) instead of tables")
    .option("-q, --quiet", "print only essential output (ids, secrets) and errors")
    .option("--no-color", "no colors (also NO_COLOR); colors are only used on a terminal");

  registerDeploy(program, makeContext);
  registerValidate(program, makeContext);
  registerCompat(program, makeContext);
  registerChannels(program, makeContext);
  registerPromote(program, makeContext);
  registerDefinitions(program, makeContext);
  registerRun(program, makeContext);
  registerSchedules(program, makeContext);
  registerEvents(program, makeContext);
  registerInstances(program, makeContext);
  registerGet(program, makeContext);
  registerWaits(program, makeContext);
  registerLogs(program, makeContext);
  registerLifecycle(program, makeContext);
  registerReset(program, makeContext);
  registerWorker(program, makeContext);
  registerTasks(program, makeContext);
  registerSignal(program, makeContext);
  registerTokens(program, makeContext);
  registerWhoami(program, makeContext);
  registerOpenApi(program, makeContext);
  registerSession(program, makeContext);
  registerDebug(program, makeContext);

  program.addHelpText(
    "after",
    [
      "",
      "Examples:",
      "  $ baton deploy 'definitions/*.yaml' --channel staging",
      "  $ baton compat --from production --to staging",
      "  $ baton promote staging production",
      "  $ baton run orders --input '{\"order_id\": 7}' --wait",
      "  $ baton instances --status failed --since 1d",
      "",
      "Exit codes: 0 ok, 1 operation failed, 2 usage error or run --wait timeout, 3 unauthenticated or forbidden, 4 not found, 5 server unreachable.",
      "",
    ].join("\n"),
  );
  return program;
}
