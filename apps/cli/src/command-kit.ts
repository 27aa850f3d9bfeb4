import type { Command } from "commander";
import type { Context } from "./context.js";
import type { GlobalFlags } from "./output.js";

/** Makes a Context for a command from its global flags. */
export type ContextFactory = (flags: GlobalFlags) => Context;

export type Options = Record<string, any>;

/**
 * Adapts a handler to commander's action signature `(...args, options, command)`, giving it a
 * context built from the global flags, the positional arguments and the command's own options.
 */
export function act(
  makeContext: ContextFactory,
  handler: (ctx: Context, args: any[], options: Options) => Promise<void>,
) {
  return async (...received: unknown[]) => {
    const command = received[received.length - 1] as Command;
    const args = received.slice(0, -2);
    const flags = command.optsWithGlobals() as GlobalFlags;
    await handler(makeContext(flags), args, command.opts());
  };
}

/** `--help` text after the options: examples people can paste. */
export function examples(command: Command, lines: string[]): Command {
  return command.addHelpText("after", `\nExamples:\n${lines.map((line) => `  $ ${line}`).join("\n")}\n`);
}

/** Collects a repeatable option into an array; comma-separated values are split. */
export function collectList(value: string, previous: string[] | undefined): string[] {
  return [
    ...(previous ?? []),
    ...value
      .split(",")
      .map((part) => part.trim())
      .filter((part) => part !== ""),
  ];
}

/** Collects a repeatable option verbatim (values may contain commas). */
export function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}
