import type { Environment } from "./environment.js";

export interface OutputStream {
  write(text: string): void;
  isTTY: boolean;
  /** Terminal width when known. */
  columns?: number;
  /** Writes a control sequence as is (the progress line's erase); `write` escapes (terminal-text.ts). */
  writeControl?(sequence: string): void;
}

/** Everything the CLI touches outside itself; `main.ts` wires the real process, tests fake it. */
export interface CliIo extends Environment {
  stdout: OutputStream;
  stderr: OutputStream;
  fetch?: typeof fetch;
  now(): number;
  sleep(ms: number): Promise<void>;
}
