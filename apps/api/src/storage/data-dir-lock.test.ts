import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { acquireDataDirLock } from "./data-dir-lock.js";

const dirs: string[] = [];
const fresh = () => {
  const d = mkdtempSync(join(tmpdir(), "baton-lock-"));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe("data directory lock", () => {
  it("refuses a directory held by another live process, naming its pid", async () => {
    const dir = fresh();
    const holder = spawn(process.execPath, ["-e", "setTimeout(() => {}, 30000)"]);
    try {
      writeFileSync(join(dir, "baton.lock"), `${holder.pid}\n`);
      expect(() => acquireDataDirLock(dir)).toThrow(new RegExp(`in use by process ${holder.pid}`));
    } finally {
      holder.kill("SIGKILL");
    }
  });

  it("takes over a stale lock whose process is gone, and removes it on release", async () => {
    const dir = fresh();
    const gone = spawn(process.execPath, ["-e", ""]);
    await new Promise((r) => gone.once("exit", r));
    writeFileSync(join(dir, "baton.lock"), `${gone.pid}\n`);
    const release = acquireDataDirLock(dir);
    expect(existsSync(join(dir, "baton.lock"))).toBe(true);
    release();
    expect(existsSync(join(dir, "baton.lock")), "release must remove the lock file").toBe(false);
  });
});
