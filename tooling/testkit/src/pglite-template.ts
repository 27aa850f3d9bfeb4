import { execFile, spawn } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const API_DIR = fileURLToPath(new URL("../../../apps/api/", import.meta.url));
const API_MAIN = join(API_DIR, "dist/main.js");
const TEMPLATES = join(tmpdir(), "baton-pglite-templates");

/**
 * What a migrated PGlite data directory depends on: the migrations and the versions of PGlite
 * (its on-disk format) and drizzle-orm (its migrations table). A template is reused only while
 * all of them are unchanged, so a copy is exactly what the server would have made itself.
 */
export function templateKey(): string {
  const hash = createHash("sha256");
  const migrations = join(API_DIR, "drizzle");
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else hash.update(path.slice(migrations.length)).update(readFileSync(path));
    }
  };
  walk(migrations);
  for (const dep of ["@electric-sql/pglite", "drizzle-orm"])
    hash.update(readFileSync(join(API_DIR, "node_modules", dep, "package.json")));
  return hash.digest("hex").slice(0, 16);
}

/**
 * Runs `baton-api tokens list` on the database the flags name (`--data-dir dir` or `--db url`):
 * it opens the database, which migrates it, and changes nothing else.
 */
export function migrateInto(...flags: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const env = { ...process.env };
    delete env.DATABASE_URL; // exactly the database of the flags
    const child = spawn(process.execPath, [API_MAIN, "tokens", "list", ...flags], {
      stdio: ["ignore", "ignore", "pipe"],
      env,
    });
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.once("error", reject);
    child.once("exit", (code) =>
      code === 0 ? resolve() : reject(new Error(`migrating a template database exited ${code}:\n${stderr}`)),
    );
  });
}

/** Marks a copy with the test process that owns it, so a later sweep can tell a leftover from a copy in use. */
const OWNER_FILE = ".baton-test-owner";

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

function pidIn(path: string): number | undefined {
  try {
    const pid = Number.parseInt(readFileSync(path, "utf8"), 10);
    return Number.isInteger(pid) ? pid : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Deletes the copies whose test process is gone and whose server (the data dir's `baton.lock`)
 * is not running: a test runner may end its workers without their exit hooks running.
 */
function sweepLeftovers(): void {
  for (const name of readdirSync(tmpdir())) {
    const dir = join(tmpdir(), name);
    const owner = pidIn(join(dir, OWNER_FILE));
    if (owner === undefined || alive(owner)) continue;
    const server = pidIn(join(dir, "baton.lock"));
    if (server !== undefined && alive(server)) continue;
    rmSync(dir, { recursive: true, force: true });
  }
}

let template: Promise<string> | undefined;

/**
 * The migrated template of this machine's current migrations, made once by the built server and
 * kept under the OS temp dir. Several test processes may make it at once: each builds its own
 * and renames it into place, and the first rename wins.
 */
function migratedTemplate(): Promise<string> {
  template ??= (async () => {
    sweepLeftovers();
    const path = join(TEMPLATES, templateKey());
    if (existsSync(path)) return path;
    mkdirSync(TEMPLATES, { recursive: true });
    const building = join(TEMPLATES, `building-${process.pid}-${randomBytes(4).toString("hex")}`);
    try {
      await migrateInto("--data-dir", building);
      renameSync(building, path);
    } catch (error) {
      if (!existsSync(path)) throw error;
    } finally {
      rmSync(building, { recursive: true, force: true });
    }
    return path;
  })();
  template.catch(() => (template = undefined));
  return template;
}

/**
 * Copies the template's files into `dir` with the system's `cp`: node's `fs.promises.cp` took
 * 0.9-1.9 s of CPU for the template's ~1,000 files where `cp` takes 0.1 s (docs/performance.md
 * "The test suite"), and a test pays it for every server and harness it opens on PGlite.
 */
function copyTree(source: string, dir: string): Promise<void> {
  return new Promise((resolve, reject) =>
    execFile("cp", ["-R", `${source}/.`, dir], (error, _stdout, stderr) =>
      error ? reject(new Error(`copying the PGlite template failed: ${stderr || error.message}`)) : resolve(),
    ),
  );
}

const owned = new Set<string>();
process.once("exit", () => {
  for (const dir of owned) rmSync(dir, { recursive: true, force: true });
});

/**
 * A fresh PGlite data directory, already migrated: a copy of the template (`migratedTemplate`).
 * A server opens it in about a second of CPU, where `memory://` or an empty directory runs
 * initdb and every migration in WASM first (about six). `removePgliteDir` deletes it; any left
 * (a test that SIGKILLed its server and stopped there) go when the test process exits, or, if
 * its exit hooks never ran, at the next test process's first copy (`sweepLeftovers`).
 */
export async function freshPgliteDir(prefix = "baton-pglite-"): Promise<string> {
  const source = await migratedTemplate();
  const dir = await mkdtemp(join(tmpdir(), prefix));
  owned.add(dir);
  await copyTree(source, dir);
  writeFileSync(join(dir, OWNER_FILE), `${process.pid}\n`);
  return dir;
}

export function removePgliteDir(dir: string): void {
  owned.delete(dir);
  rmSync(dir, { recursive: true, force: true });
}
