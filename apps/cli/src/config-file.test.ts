import { mkdirSync, mkdtempSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { readConfig, removeConfig, writeConfig } from "./config-file.js";
import type { Environment } from "./environment.js";
import { configFilePath, lastInstanceFilePath } from "./user-files.js";

function environment(env: Record<string, string> = {}): Environment {
  const home = mkdtempSync(path.join(tmpdir(), "baton-config-"));
  return { env: { XDG_CONFIG_HOME: path.join(home, "xdg"), ...env }, cwd: home, homedir: home };
}

describe("config file", () => {
  it("lives under XDG_CONFIG_HOME, else ~/.config; a relative XDG value is ignored", () => {
    expect(configFilePath({ env: { XDG_CONFIG_HOME: "/x" }, cwd: "/", homedir: "/home/u" })).toBe(
      "/x/baton/config.json",
    );
    expect(configFilePath({ env: {}, cwd: "/", homedir: "/home/u" })).toBe("/home/u/.config/baton/config.json");
    expect(configFilePath({ env: { XDG_CONFIG_HOME: "rel" }, cwd: "/", homedir: "/home/u" })).toBe(
      "/home/u/.config/baton/config.json",
    );
    expect(lastInstanceFilePath({ env: {}, cwd: "/", homedir: "/home/u" })).toBe(
      "/home/u/.local/state/baton/last-instance",
    );
  });

  it("is written with mode 0600, read back, and removed", async () => {
    const env = environment();
    const file = await writeConfig(env, { server: "http://a:1", token: "svc_sk_x" });
    expect(statSync(file).mode & 0o777, "the file holds a credential").toBe(0o600);
    expect(await readConfig(env)).toEqual({ server: "http://a:1", token: "svc_sk_x" });
    expect(await removeConfig(env)).toBe(true);
    expect(await removeConfig(env)).toBe(false);
    expect(await readConfig(env)).toEqual({});
  });

  it("tightens the mode of an existing file", async () => {
    const env = environment();
    const file = configFilePath(env);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, "{}", { mode: 0o644 });
    await writeConfig(env, { server: "http://a:1" });
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it("explains a corrupt file instead of crashing", async () => {
    const env = environment();
    const file = configFilePath(env);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, "{nope");
    await expect(readConfig(env)).rejects.toThrow(/is not valid JSON .*baton logout/);
    writeFileSync(file, '{"server": 7}');
    await expect(readConfig(env)).rejects.toThrow(/"server" must be a string/);
  });
});
