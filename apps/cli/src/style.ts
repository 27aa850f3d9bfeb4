/** ANSI styling that is the identity when colors are off. */
export interface Style {
  enabled: boolean;
  bold(text: string): string;
  dim(text: string): string;
  red(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
  cyan(text: string): string;
}

function sgr(enabled: boolean, open: number, close: number): (text: string) => string {
  return enabled ? (text) => `\x1b[${open}m${text}\x1b[${close}m` : (text) => text;
}

export function createStyle(enabled: boolean): Style {
  return {
    enabled,
    bold: sgr(enabled, 1, 22),
    dim: sgr(enabled, 2, 22),
    red: sgr(enabled, 31, 39),
    green: sgr(enabled, 32, 39),
    yellow: sgr(enabled, 33, 39),
    cyan: sgr(enabled, 36, 39),
  };
}

/** Colors only on a TTY, and never with --no-color or a non-empty NO_COLOR. */
export function colorsWanted(isTTY: boolean, colorFlag: boolean, env: Record<string, string | undefined>): boolean {
  return isTTY && colorFlag && !env.NO_COLOR;
}

const STATUS_COLOR: Record<string, keyof Omit<Style, "enabled" | "bold" | "dim">> = {
  completed: "green",
  running: "cyan",
  pausing: "yellow",
  paused: "yellow",
  failing: "red",
  cancelling: "yellow",
  failed: "red",
  raised: "red",
  cancelled: "yellow",
};

export function colorStatus(style: Style, status: string): string {
  const color = STATUS_COLOR[status];
  return color ? style[color](status) : status;
}
