import { chmod, mkdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { CliError } from "./cli-error.js";
import type { Environment } from "./environment.js";
import { configFilePath } from "./user-files.js";

/** What `baton login` stores. */
export interface StoredConfig {
  server?: string;
  token?: string;
}

export async function readConfig(environment: Environment): Promise<StoredConfig> {
  const file = configFilePath(environment);
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return {};
    throw new CliError(`cannot read the config file ${file}: ${(error as Error).message}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new CliError(
      `the config file ${file} is not valid JSON (${(error as Error).message}); fix it or run baton logout`,
    );
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new CliError(`the config file ${file} must hold a JSON object like {"server": "...", "token": "..."}`);
  }
  const { server, token } = value as Record<string, unknown>;
  for (const [key, field] of [
    ["server", server],
    ["token", token],
  ] as const) {
    if (field !== undefined && typeof field !== "string") {
      throw new CliError(`the config file ${file}: "${key}" must be a string`);
    }
  }
  return { server: server as string | undefined, token: token as string | undefined };
}

/** Writes the file readable by its owner only (it holds a credential). */
export async function writeConfig(environment: Environment, config: StoredConfig): Promise<string> {
  const file = configFilePath(environment);
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  await writeFile(file, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  // writeFile's mode applies only when it creates the file; an existing one keeps its mode.
  await chmod(file, 0o600);
  return file;
}

/** Returns whether a file was there to remove. */
export async function removeConfig(environment: Environment): Promise<boolean> {
  const file = configFilePath(environment);
  try {
    await rm(file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw new CliError(`cannot remove the config file ${file}: ${(error as Error).message}`);
  }
}
