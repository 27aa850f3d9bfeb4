import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const LOCK_FILE = "baton.lock";

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Takes the exclusive right to open a PGlite data directory for this process, by creating
 * `baton.lock` with our pid (O_EXCL). A lock whose pid is no longer running is stale (the
 * holder was killed) and is taken over. Returns the release function.
 */
export function acquireDataDirLock(dataDir: string): () => void {
  const path = join(dataDir, LOCK_FILE);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(path, `${process.pid}\n`, { flag: "wx" });
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        process.off("exit", release);
        rmSync(path, { force: true });
      };
      process.on("exit", release);
      return release;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const holder = Number.parseInt(readFileSync(path, "utf8"), 10);
      if (Number.isInteger(holder) && holder !== process.pid && alive(holder)) {
        throw new Error(
          `the data directory ${dataDir} is in use by process ${holder}; PGlite allows one process per directory (stop it, or use PostgreSQL with --db for several)`,
        );
      }
      rmSync(path, { force: true });
    }
  }
  throw new Error(`cannot lock the data directory ${dataDir}: ${path} keeps reappearing`);
}
