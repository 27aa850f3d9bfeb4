import type { OutputStream } from "./cli-io.js";

export interface ProgressLine {
  update(text: string): void;
  clear(): void;
}

const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

/** One line rewritten in place on a terminal; does nothing when `enabled` is false. */
export function createProgressLine(stream: OutputStream, enabled: boolean): ProgressLine {
  let frame = 0;
  let shown = false;
  const erase = () => (stream.writeControl ? stream.writeControl("\r\x1b[K") : stream.write("\r\x1b[K"));
  return {
    update(text) {
      if (!enabled) return;
      const width = (stream.columns ?? 80) - 1;
      const line = `${FRAMES[frame++ % FRAMES.length]} ${text}`;
      erase();
      stream.write(line.length > width ? line.slice(0, width) : line);
      shown = true;
    },
    clear() {
      if (shown) erase();
      shown = false;
    },
  };
}
