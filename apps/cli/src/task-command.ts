import { spawn } from "node:child_process";

export interface CommandResult {
  /** Exit code, or null when killed by a signal. */
  code: number | null;
  stdout: string;
  stderr: string;
  aborted: boolean;
}

const OUTPUT_CAP = 16 * 1024 * 1024;

/**
 * Runs `command` with `sh -c`, `stdin` written to its standard input, and collects its output.
 * Aborting the signal sends SIGTERM to the command's process group (SIGKILL 5 s later) and
 * resolves with `aborted: true`.
 */
export function runTaskCommand(command: string, stdin: string, env: Record<string, string | undefined>, cwd: string, signal: AbortSignal): Promise<CommandResult> {
  return new Promise((resolve) => {
    // Its own process group, so that stopping it also stops what the shell started.
    const child = spawn("sh", ["-c", command], { cwd, env, stdio: ["pipe", "pipe", "pipe"], detached: true });
    const killGroup = (signalName: NodeJS.Signals) => {
      try {
        process.kill(-child.pid!, signalName);
      } catch {
        child.kill(signalName);
      }
    };
    let stdout = "";
    let stderr = "";
    let aborted = false;
    let killTimer: NodeJS.Timeout | undefined;
    child.stdout.on("data", (chunk: Buffer) => {
      if (stdout.length < OUTPUT_CAP) stdout += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      if (stderr.length < OUTPUT_CAP) stderr += chunk.toString();
    });
    // A command that does not read its input closes the pipe early; that is not an error.
    child.stdin.on("error", () => {});
    child.stdin.end(stdin);
    const onAbort = () => {
      aborted = true;
      killGroup("SIGTERM");
      killTimer = setTimeout(() => killGroup("SIGKILL"), 5000);
      killTimer.unref();
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
    child.on("error", (error) => {
      stderr += `${error.message}\n`;
    });
    child.on("close", (code) => {
      if (killTimer) clearTimeout(killTimer);
      signal.removeEventListener("abort", onAbort);
      resolve({ code, stdout, stderr, aborted });
    });
  });
}
