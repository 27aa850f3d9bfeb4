import { readdir, stat } from "node:fs/promises";
import path from "node:path";
import { UsageError } from "./cli-error.js";

const GLOB_CHARS = /[*?[{]/;
const DEFINITION_FILE = /\.(ya?ml|json)$/i;

export function isGlob(pattern: string): boolean {
  return GLOB_CHARS.test(pattern);
}

/**
 * Expands FILES|GLOBS|DIRECTORIES into existing file paths, in argument order (each glob's and
 * directory's matches sorted), without duplicates. A directory stands for every .yaml/.yml/.json
 * file below it. Globs are expanded here because CI steps often pass them quoted.
 */
export async function expandFileArguments(args: string[], cwd: string): Promise<string[]> {
  const files: string[] = [];
  for (const arg of args) {
    files.push(...(await expandOne(arg, cwd)));
  }
  return [...new Set(files)];
}

async function expandOne(arg: string, cwd: string): Promise<string[]> {
  if (isGlob(arg)) {
    const matches = await matchGlob(arg, cwd);
    if (matches.length === 0) throw new UsageError(`no files match ${arg}`);
    return matches;
  }
  const absolute = path.resolve(cwd, arg);
  const info = await stat(absolute).catch(() => undefined);
  if (!info) throw new UsageError(`file not found: ${arg}`);
  if (!info.isDirectory()) return [arg];
  const found = (await walk(absolute)).filter((file) => DEFINITION_FILE.test(file)).sort();
  if (found.length === 0) throw new UsageError(`no .yaml, .yml or .json files in directory ${arg}`);
  return found.map((file) => path.join(arg, file));
}

/** Files below `dir` as slash-separated relative paths; skips dot entries and node_modules. */
async function walk(dir: string, prefix = ""): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  const out: string[] = [];
  for (const entry of entries) {
    if (entry.name.startsWith(".") || entry.name === "node_modules") continue;
    const relative = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isDirectory()) out.push(...(await walk(path.join(dir, entry.name), relative)));
    else if (entry.isFile()) out.push(relative);
  }
  return out;
}

/** Matches `*`, `?`, `[...]`, `{a,b}` within a segment and `**` across directories. */
export async function matchGlob(pattern: string, cwd: string): Promise<string[]> {
  const normalized = pattern.replace(/\\/g, "/");
  const segments = normalized.split("/");
  const firstGlob = segments.findIndex((segment) => isGlob(segment));
  const baseSegments = segments.slice(0, firstGlob);
  const base = baseSegments.join("/");
  const fromRoot = base === "" && normalized.startsWith("/");
  const baseDir = path.resolve(cwd, fromRoot ? "/" : base || ".");
  const matcher = globToRegExp(segments.slice(firstGlob).join("/"));
  const candidates = await walk(baseDir);
  const prefix = fromRoot ? "/" : base === "" ? "" : `${base}/`;
  return candidates
    .filter((relative) => matcher.test(relative))
    .sort()
    .map((relative) => `${prefix}${relative}`);
}

export function globToRegExp(glob: string): RegExp {
  let source = "";
  for (let i = 0; i < glob.length; i++) {
    const char = glob[i];
    if (char === "*") {
      if (glob[i + 1] === "*") {
        const atSegmentStart = i === 0 || glob[i - 1] === "/";
        const atSegmentEnd = glob[i + 2] === "/" || i + 2 === glob.length;
        if (atSegmentStart && atSegmentEnd) {
          // "**/" matches zero or more directories; a trailing "**" matches everything below.
          source += glob[i + 2] === "/" ? "(?:[^/]+/)*" : ".*";
          i += glob[i + 2] === "/" ? 2 : 1;
          continue;
        }
      }
      source += "[^/]*";
    } else if (char === "?") {
      source += "[^/]";
    } else if (char === "[") {
      const close = glob.indexOf("]", i + 2);
      if (close === -1) {
        source += "\\[";
      } else {
        const body = glob
          .slice(i + 1, close)
          .replace(/^!/, "^")
          .replace(/\\/g, "\\\\");
        source += `[${body}]`;
        i = close;
      }
    } else if (char === "{") {
      const close = glob.indexOf("}", i);
      if (close === -1) {
        source += "\\{";
      } else {
        const options = glob
          .slice(i + 1, close)
          .split(",")
          .map((option) => globToRegExp(option).source.slice(1, -1));
        source += `(?:${options.join("|")})`;
        i = close;
      }
    } else {
      source += char.replace(/[.+^$()|\\\]}]/g, "\\$&");
    }
  }
  return new RegExp(`^${source}$`);
}
