import { type ChildProcess, spawn } from "node:child_process";

/** A Node process started by spawnListening, past its `listening` log line. */
export interface ListeningProcess {
  /** The URL of its `listening` line. */
  url: string;
  child: ChildProcess;
  /** Everything it wrote to stderr so far (JSON log lines). */
  stderr(): string;
  stdout(): string;
  /** Resolves with the exit code (null when killed by a signal) once it has exited. */
  exited: Promise<number | null>;
  /** SIGTERM (SIGKILL after 10 s) unless it already exited; resolves with the exit code. */
  terminate(): Promise<number | null>;
}

/**
 * Runs `node main ...args` and resolves once it logs `{"msg":"listening","url":…}` on stderr —
 * the start-up line of baton-api and baton-proxy. Rejects with everything it wrote when it
 * exits first or says nothing within `timeoutMs`.
 */
export async function spawnListening(
  name: string,
  main: string,
  args: string[],
  env: Record<string, string>,
  timeoutMs: number,
): Promise<ListeningProcess> {
  const child = spawn(process.execPath, [main, ...args], { env, stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  let stdout = "";
  child.stdout!.on("data", (d: Buffer) => (stdout += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${name} did not start within ${timeoutMs} ms:\n${stderr}`)),
      timeoutMs,
    );
    timer.unref();
    child.stderr!.on("data", (d: Buffer) => {
      stderr += d.toString();
      const m = /"msg":"listening","url":"([^"]+)"/.exec(stderr);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited with ${code} before listening:\n${stderr}${stdout}`));
    });
  });
  return {
    url,
    child,
    stderr: () => stderr,
    stdout: () => stdout,
    exited,
    async terminate() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}
