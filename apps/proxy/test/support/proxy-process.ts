import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { API_MAIN, spawnListening } from "@baton/testkit";

export const PROXY_MAIN = fileURLToPath(new URL("../../dist/main.js", import.meta.url));

export interface ProxyProcess {
  url: string;
  child: ChildProcess;
  stderr(): string;
  /** SIGTERM and wait; resolves with the exit code. */
  stop(): Promise<number | null>;
}

export function requireBuilt(): void {
  if (!existsSync(PROXY_MAIN))
    throw new Error(
      `${PROXY_MAIN} is missing: build the proxy first (pnpm exec turbo run build --filter=@baton/proxy)`,
    );
  if (!existsSync(API_MAIN))
    throw new Error(`${API_MAIN} is missing: build the api first (pnpm exec turbo run build --filter=@baton/api)`);
}

/**
 * The built `baton-proxy`, by default on a free loopback port (`--http 127.0.0.1:0` unless
 * `--http` is given or `useConfigListen`); resolves once it logs `listening`.
 */
export async function startProxy(
  args: string[],
  env: Record<string, string> = {},
  options: { useConfigListen?: boolean } = {},
): Promise<ProxyProcess> {
  const fullArgs = args.includes("--http") || options.useConfigListen ? args : [...args, "--http", "127.0.0.1:0"];
  const childEnv: Record<string, string> = { ...(process.env as Record<string, string>), ...env };
  for (const name of ["BATON_PROXY_CONFIG", "BATON_SERVER"]) if (!(name in env)) delete childEnv[name];
  const started = await spawnListening("baton-proxy", PROXY_MAIN, fullArgs, childEnv, 20_000);
  return { url: started.url, child: started.child, stderr: started.stderr, stop: started.terminate };
}

/** Runs `baton-proxy` expecting it to exit by itself (a start-up failure, --version). */
export function runProxy(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const childEnv: Record<string, string> = { ...(process.env as Record<string, string>), ...env };
  for (const name of ["BATON_PROXY_CONFIG", "BATON_SERVER"]) if (!(name in env)) delete childEnv[name];
  const child = spawn(process.execPath, [PROXY_MAIN, ...args], { env: childEnv, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
    child.once("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** A temporary folder with the given files (a config, a secret file…); returns its path. */
export function tempFiles(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "baton-proxy-e2e-"));
  for (const [name, content] of Object.entries(files)) writeFileSync(join(dir, name), content);
  return dir;
}

/** The `name=value` pair of a Set-Cookie header, for sending back as Cookie. */
export function cookiePair(res: { headers: Headers }, name: string): string {
  const header = res.headers.getSetCookie().find((c) => c.startsWith(`${name}=`));
  if (!header) throw new Error(`no ${name} cookie in ${JSON.stringify(res.headers.getSetCookie())}`);
  return header.split(";")[0]!;
}
