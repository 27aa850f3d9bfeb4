import { spawn } from "node:child_process";

export interface CommandResult {
  /** Exit code, or null when killed by a signal. */
  code: number | null;
  stdout: string;
  stderr: string;
  aborted: boolean;
}

const OUTPUT_CAP = 16 * 1024 * 1024;

// Commands run in their own process groups, so a Ctrl-C on the terminal does not reach them:
// when the CLI exits for any reason, it takes the commands still running down with it.
const runningGroups = new Set<number>();
let exitHookInstalled = false;

function stopRunningGroupsOnExit(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on("exit", () => {
    for (const pid of runningGroups) {
      try {
        process.kill(-pid, "SIGTERM");
      } catch {
        // Already gone.
      }
    }
  });
}

/**
 * Runs `command` with `sh -c`, `stdin` written to its standard input, and collects its output;
 * `onStderrLine` hears each line of its stderr as it comes (the worker streams them, prefixed).
 * Aborting the signal sends SIGTERM to the command's process group (SIGKILL 5 s later) and
 * resolves with `aborted: true`.
 */
export function runTaskCommand(
  command: string,
  stdin: string,
  env: Record<string, string | undefined>,
  cwd: string,
  signal: AbortSignal,
  onStderrLine?: (line: string) => void,
): Promise<CommandResult> {
  return new Promise((resolve) => {
    // Its own process group, so that stopping it also stops what the shell started.
    const child = spawn("sh", ["-c", command], { cwd, env, stdio: ["pipe", "pipe", "pipe"], detached: true });
    stopRunningGroupsOnExit();
    if (child.pid !== undefined) runningGroups.add(child.pid);
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
    let partialLine = "";
    child.stderr.on("data", (chunk: Buffer) => {
      const text = chunk.toString();
      if (stderr.length < OUTPUT_CAP) stderr += text;
      if (!onStderrLine) return;
      const lines = (partialLine + text).split("\n");
      partialLine = lines.pop() ?? "";
      // A line without a newline is passed on once it grows past the cap, so memory stays bounded.
      if (partialLine.length > 64 * 1024) {
        lines.push(partialLine);
        partialLine = "";
      }
      for (const line of lines) onStderrLine(line);
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
      if (partialLine && onStderrLine) onStderrLine(partialLine);
      if (child.pid !== undefined) runningGroups.delete(child.pid);
      if (killTimer) clearTimeout(killTimer);
      signal.removeEventListener("abort", onAbort);
      resolve({ code, stdout, stderr, aborted });
    });
  });
}
