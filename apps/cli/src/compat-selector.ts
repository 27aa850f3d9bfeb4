import { existsSync } from "node:fs";
import path from "node:path";
import type { CompatSelector } from "@baton/actions";
import { UsageError } from "./cli-error.js";
import { loadDefinitions } from "./definition-files.js";
import { isGlob } from "./file-patterns.js";

const PAIR = /^([^@\s,]+)@([^@\s,]+)$/;

/** How a selector value was read; exported for tests and messages. */
export type SelectorKind = "channel" | "versions" | "files";

export function selectorKind(values: string[], cwd: string): SelectorKind {
  const parts = values.flatMap(splitList);
  const kinds = new Set(parts.map((part) => partKind(part, cwd)));
  if (kinds.size > 1) {
    throw new UsageError(
      `cannot mix ${[...kinds].join(" and ")} in one selector (${values.join(" ")}): use a channel, NAME@VERSION pairs, or files`,
    );
  }
  const kind = [...kinds][0] ?? "channel";
  if (kind === "channel" && parts.length !== 1) {
    throw new UsageError(`a selector names one channel, got ${parts.join(", ")}`);
  }
  return kind;
}

function splitList(value: string): string[] {
  return value
    .split(",")
    .map((part) => part.trim())
    .filter((part) => part !== "");
}

function partKind(part: string, cwd: string): SelectorKind {
  if (isGlob(part) || /\.(ya?ml|json)$/i.test(part) || part.includes("/") || existsSync(path.resolve(cwd, part)))
    return "files";
  if (PAIR.test(part)) return "versions";
  return "channel";
}

/**
 * A compat selector (docs/cli.md: exactly one of channel, definitions, versions) from flag values:
 * a channel name; NAME@VERSION pairs (VERSION a number or a channel name), comma-separated or
 * repeated; or definition files/globs/directories.
 */
export async function parseSelector(values: string[], flag: string, cwd: string): Promise<CompatSelector> {
  if (values.length === 0) throw new UsageError(`${flag} is required`);
  const kind = selectorKind(values, cwd);
  const parts = values.flatMap(splitList);
  if (kind === "channel") return { channel: parts[0] };
  if (kind === "files") {
    const loaded = await loadDefinitions(parts, cwd);
    return { definitions: loaded.map((item) => item.definition) };
  }
  const versions: { [process: string]: number | string } = {};
  for (const part of parts) {
    const [, name, version] = PAIR.exec(part)!;
    if (name in versions) throw new UsageError(`${flag}: process ${name} is named twice`);
    versions[name] = /^[0-9]+$/.test(version) ? Number(version) : version;
  }
  return { versions };
}
