import { CliError } from "./cli-error.js";
import type { ApiClient } from "./context.js";
import { ExitCode } from "./exit-code.js";
import { listPages } from "./list-pages.js";
import type { ProcessRef } from "./process-ref.js";

/** The version a reference names: its number, the one its channel points at, or undefined (latest). */
export async function versionOf(api: ApiClient, ref: ProcessRef): Promise<number | undefined> {
  if (ref.channel === undefined) return ref.version;
  const { items } = await listPages(api, "listChannels", { query: { name: ref.process } }, { all: true });
  const entry = items.find((item) => item.name === ref.process && item.channel === ref.channel);
  if (!entry) {
    const known = items.map((item) => item.channel);
    throw new CliError(
      `process ${ref.process} has no channel ${ref.channel}${known.length > 0 ? ` (its channels: ${known.join(", ")})` : ""}`,
      ExitCode.notFound,
    );
  }
  return entry.version;
}
