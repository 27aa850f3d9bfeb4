import { execFile } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** The built CLI; e2e tests spawn it, never import it. */
export const BATON_MAIN = fileURLToPath(new URL("../../dist/main.js", import.meta.url));

export interface BatonRun {
  code: number;
  stdout: string;
  stderr: string;
}

export interface BatonEnv {
  /** Private XDG dirs, so no test reads or writes the real user's config or @last. */
  env: Record<string, string>;
  home: string;
}

export function isolatedEnv(extra: Record<string, string> = {}): BatonEnv {
  const home = mkdtempSync(path.join(tmpdir(), "baton-e2e-"));
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "",
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, "config"),
    XDG_STATE_HOME: path.join(home, "state"),
    ...extra,
  };
  return { env, home };
}

/** Spawns `node dist/main.js ...args` and resolves with its exit code and output (never rejects on exit codes). */
export function baton(
  args: string[],
  options: { env: Record<string, string>; cwd?: string; timeoutMs?: number },
): Promise<BatonRun> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [BATON_MAIN, ...args],
      { env: options.env, cwd: options.cwd, timeout: options.timeoutMs ?? 60_000, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error && typeof error.code !== "number") return reject(error);
        resolve({ code: error ? (error.code as number) : 0, stdout, stderr });
      },
    );
  });
}
