import { readFileSync } from "node:fs";
import bcrypt from "bcryptjs";
import { describe, expect, it } from "vitest";
import { parseConfig } from "./config.js";

const DOC = new URL("../../../docs/proxy.md", import.meta.url);

describe("docs/proxy.md", () => {
  it("shows an example config that validates, with hashes of the passwords it names", () => {
    const doc = readFileSync(DOC, "utf8");
    const example = /## The config file\s+```yaml\n([\s\S]*?)```/.exec(doc)?.[1];
    expect(example, "the first yaml block under 'The config file'").toBeDefined();
    const config = parseConfig(example!, "docs/proxy.md", (path) => {
      expect(path).toBe("/etc/baton/jwt-secret");
      return `${"x".repeat(48)}\n`;
    });
    expect(config.login!.providers.map((p) => p.id)).toEqual(["corp"]);
    expect(bcrypt.compareSync("change-me", config.login!.passwords[0]!.hash)).toBe(true);
    expect(bcrypt.compareSync("change-me-too", config.login!.passwords[1]!.hash)).toBe(true);
  });
});
