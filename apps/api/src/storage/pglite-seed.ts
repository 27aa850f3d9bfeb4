import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { gunzipSync } from "node:zlib";

// A fresh PGlite data directory from the migrated template the build ships
// (scripts/pglite-template.mjs, docs/performance.md "Start-up"): initdb and every migration in
// WASM took 7 s of CPU and 900 MiB; unpacking the template takes a fraction of that, and the
// migrations then find nothing to do (or only what is newer than the template).

// Same path from src/ (vitest) and dist/ (node): both sit one level below the package root.
const TEMPLATE = fileURLToPath(new URL("../../dist/pglite-template.tar.gz", import.meta.url));

/**
 * Unpacks the template into `dataDir` unless it already holds a database (its PG_VERSION) or
 * the build shipped no template; returns whether it did. The caller holds the data directory's
 * lock. PG_VERSION is written last: a directory left without it by a crash is seeded again.
 */
export function seedFromTemplate(dataDir: string, template = TEMPLATE): boolean {
  if (existsSync(join(dataDir, "PG_VERSION")) || !existsSync(template)) return false;
  let version: { path: string; body: Buffer } | undefined;
  for (const entry of tarEntries(gunzipSync(readFileSync(template)))) {
    const relative = entry.name.replace(/^\.?\/+/, "");
    if (relative === "" || relative.split("/").includes("..")) throw new Error(`bad template entry "${entry.name}"`);
    const path = join(dataDir, ...relative.split("/"));
    if (entry.type === "5") mkdirSync(path, { recursive: true, mode: entry.mode });
    else if (relative === "PG_VERSION") version = { path, body: entry.body };
    else {
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, entry.body, { mode: entry.mode });
    }
  }
  if (!version) throw new Error(`${template} holds no PG_VERSION: not a PGlite data directory`);
  writeFileSync(version.path, version.body, { mode: 0o600 });
  return true;
}

interface TarEntry {
  name: string;
  type: string;
  mode: number;
  body: Buffer;
}

/** The entries of a ustar archive: regular files ("0") and directories ("5"), what PGlite's dump holds. */
function* tarEntries(tar: Buffer): Generator<TarEntry> {
  for (let at = 0; at + 512 <= tar.length; ) {
    const header = tar.subarray(at, at + 512);
    if (header.every((b) => b === 0)) return;
    const field = (from: number, to: number) => {
      const text = header.subarray(from, to).toString("latin1");
      const end = text.indexOf("\0");
      return end < 0 ? text : text.slice(0, end);
    };
    const prefix = field(345, 500);
    const name = prefix ? `${prefix}/${field(0, 100)}` : field(0, 100);
    const size = Number.parseInt(field(124, 136).trim() || "0", 8);
    const type = field(156, 157) || "0";
    if (type !== "0" && type !== "5") throw new Error(`unexpected entry type "${type}" for ${name}`);
    yield {
      name,
      type,
      mode: Number.parseInt(field(100, 108).trim() || "600", 8) & 0o777,
      body: tar.subarray(at + 512, at + 512 + size),
    };
    at += 512 + Math.ceil(size / 512) * 512;
  }
}
