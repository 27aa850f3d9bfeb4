import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const FOLDERS = ["src", "test", "web/src", "web/test"];

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return /\.(ts|tsx|css|html)$/.test(name) ? [path] : [];
  });
}

describe("comments in the proxy and the UI", () => {
  it("cite docs/*.md, never the specification files outside the repository", () => {
    // Built from pieces so this file does not cite them itself.
    const outside = new RegExp(`\\b(?:${["SP" + "EC", "DES" + "IGN", "LANG" + "UAGE"].join("|")})(?:\\.md| §| ")`);
    const offenders = FOLDERS.flatMap((folder) => sources(join(ROOT, folder)))
      .flatMap((file) =>
        readFileSync(file, "utf8")
          .split("\n")
          .map((line, i) => ({ file: file.slice(ROOT.length), line: i + 1, text: line.trim() }))
          .filter((l) => outside.test(l.text)),
      )
      .map((l) => `${l.file}:${l.line}: ${l.text}`);
    expect(offenders).toEqual([]);
  });
});
