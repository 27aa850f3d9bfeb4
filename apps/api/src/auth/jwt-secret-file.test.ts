import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readJwtSecretFile } from "./jwt-secret-file.js";

const dir = mkdtempSync(join(tmpdir(), "baton-jwt-secret-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, content: string): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

function failure(path: string): string {
  try {
    readJwtSecretFile(path);
    return "";
  } catch (error) {
    return (error as Error).message;
  }
}

describe("readJwtSecretFile", () => {
  it("returns the trimmed secret as key bytes", () => {
    const secret = "k".repeat(32);
    expect(new TextDecoder().decode(readJwtSecretFile(file("ok", `\n  ${secret}\n\n`)))).toBe(secret);
  });

  it("refuses a secret shorter than 32 characters after trimming, without quoting it", () => {
    const short = "s3cr3t-".repeat(4);
    const path = file("short", `${short}\n      \n`);
    const message = failure(path);
    expect(message).toBe(
      `--jwt-secret-file ${path}: the secret is 28 characters after trimming whitespace; at least 32 are required`,
    );
    expect(message).not.toContain(short);
  });

  it("refuses an empty or whitespace-only file", () => {
    expect(failure(file("blank", " \n\t \n"))).toContain("the secret is 0 characters");
  });

  it("refuses a missing file and a directory with one line naming the path", () => {
    const missing = join(dir, "nope");
    expect(failure(missing)).toBe(`--jwt-secret-file ${missing}: cannot read it (no such file)`);
    expect(failure(dir)).toBe(`--jwt-secret-file ${dir}: cannot read it (it is a directory)`);
  });
});
