import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { UsageError } from "./cli-error.js";
import type { Environment } from "./environment.js";
import { lastInstanceFilePath } from "./user-files.js";

export const LAST_INSTANCE = "@last";

export async function rememberLastInstance(environment: Environment, id: string): Promise<void> {
  const file = lastInstanceFilePath(environment);
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  await writeFile(file, `${id}\n`, { mode: 0o600 });
}

/** `@last` becomes the id of the last instance this CLI started; anything else is returned as is. */
export async function resolveInstanceId(environment: Environment, id: string): Promise<string> {
  if (id !== LAST_INSTANCE) return id;
  const file = lastInstanceFilePath(environment);
  let text = "";
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  const last = text.trim();
  if (!last)
    throw new UsageError(
      `${LAST_INSTANCE} is not set: no instance has been started with baton run yet (state file ${file})`,
    );
  return last;
}
