import { readFileSync } from "node:fs";

/** The CLI's version, read from the package.json beside dist/ (present in the workspace and in the packed tarball). */
export function cliVersion(): string {
  try {
    const manifest = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as {
      version?: string;
    };
    return manifest.version ?? "0.0.0";
  } catch {
    return "0.0.0";
  }
}
