import path from "node:path";
import type { Environment } from "./environment.js";

// XDG base directories; a relative XDG_* value is invalid per the spec and ignored.
function baseDir(environment: Environment, variable: string, fallback: string[]): string {
  const value = environment.env[variable];
  if (value && path.isAbsolute(value)) return value;
  return path.join(environment.homedir, ...fallback);
}

export function configFilePath(environment: Environment): string {
  return path.join(baseDir(environment, "XDG_CONFIG_HOME", [".config"]), "baton", "config.json");
}

export function lastInstanceFilePath(environment: Environment): string {
  return path.join(baseDir(environment, "XDG_STATE_HOME", [".local", "state"]), "baton", "last-instance");
}
