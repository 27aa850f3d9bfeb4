import { UsageError } from "./cli-error.js";

export interface ProcessRef {
  process: string;
  version?: number;
  /** `PROCESS@CHANNEL`: the version that channel points at. */
  channel?: string;
}

const CHANNEL_NAME = /^[A-Za-z][A-Za-z0-9_.-]*$/;

/** `PROCESS`, `PROCESS@VERSION` (a positive integer, or vN) or `PROCESS@CHANNEL`. */
export function parseProcessRef(text: string): ProcessRef {
  const at = text.lastIndexOf("@");
  if (at === -1) {
    if (!text) throw new UsageError("missing process name");
    return { process: text };
  }
  const process = text.slice(0, at);
  const suffix = text.slice(at + 1);
  if (!process || !suffix)
    throw new UsageError(`invalid process reference "${text}": expected PROCESS, PROCESS@VERSION or PROCESS@CHANNEL`);
  if (!/^v?[0-9]+$/.test(suffix) && CHANNEL_NAME.test(suffix)) return { process, channel: suffix };
  return { process, version: parseVersion(suffix, `"${text}"`) };
}

/** A version number as typed by a person: a positive integer, optionally written vN. */
export function parseVersion(text: string, where: string): number {
  const match = /^v?([0-9]+)$/.exec(text.trim());
  const value = match ? Number(match[1]) : Number.NaN;
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new UsageError(`invalid version in ${where}: expected a positive integer like 3, got "${text}"`);
  }
  return value;
}

export function parsePositiveInteger(text: string, flag: string): number {
  const value = /^[0-9]+$/.test(text.trim()) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new UsageError(`${flag}: expected a positive integer, got "${text}"`);
  }
  return value;
}
