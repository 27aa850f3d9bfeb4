import { readFileSync } from "node:fs";

export const MIN_JWT_SECRET_LENGTH = 32;

/**
 * The HS256 key shared with the sign-in proxy: the file's text with surrounding whitespace
 * trimmed (the proxy trims the same way). Throws one line naming the file and what is wrong;
 * the message never contains any of the file's content.
 */
export function readJwtSecretFile(path: string): Uint8Array {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why =
      code === "ENOENT"
        ? "no such file"
        : code === "EACCES"
          ? "permission denied"
          : code === "EISDIR"
            ? "it is a directory"
            : (code ?? "unreadable");
    throw new Error(`--jwt-secret-file ${path}: cannot read it (${why})`);
  }
  const secret = text.trim();
  if (secret.length < MIN_JWT_SECRET_LENGTH) {
    throw new Error(
      `--jwt-secret-file ${path}: the secret is ${secret.length} characters after trimming whitespace; at least ${MIN_JWT_SECRET_LENGTH} are required`,
    );
  }
  return new TextEncoder().encode(secret);
}
