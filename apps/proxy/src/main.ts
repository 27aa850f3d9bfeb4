#!/usr/bin/env node
import { readFileSync } from "node:fs";
import { CONNECTION_FLAGS, type ConnectionLimits } from "@baton/http-edge";
import { Command, InvalidArgumentError } from "commander";
import { readFlagsFromEnvironment } from "@baton/flag-env";
import { loadConfigFile, type ProxyConfig } from "./config.js";
import { isLoopbackHost, type ListenAddress, parseListenAddress } from "./listen-address.js";
import { createLogger, isLogLevel } from "@baton/log";
import { type RunningProxy, startProxy } from "./server.js";
import { defaultUiDir } from "./static-ui.js";

const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string };

/** With a login configured: all interfaces (the proxy is what people reach). */
export const DEFAULT_LISTEN = ":8448";
/** Without a login the proxy forwards anyone's requests as they are, so it stays on this machine by default. */
export const DEFAULT_LISTEN_NO_LOGIN = "127.0.0.1:8448";
export const DEFAULT_SERVER = "http://127.0.0.1:8449";

const program = new Command("baton-proxy")
  .description("Baton sign-in proxy: serves the UI, signs people in and proxies the API with short-lived JWTs")
  .version(pkg.version, "--version", "print the version and exit")
  .option("--config <path>", "YAML config file; without one there is no login and requests pass as they are")
  .option(
    "--http <addr>",
    `listen address HOST:PORT or :PORT; overrides the config's listen (default ${DEFAULT_LISTEN} with a login, ${DEFAULT_LISTEN_NO_LOGIN} without)`,
  )
  .option(
    "--server <url>",
    `the API to proxy to when no config is given (also env BATON_SERVER; default ${DEFAULT_SERVER})`,
  );
// The connection flags, shared with baton-api (docs/limits.md "Connections").
for (const f of CONNECTION_FLAGS)
  program.option(
    `--${f.flag} <n>`,
    `${f.description} (default ${f.default})`,
    wholeNumber(`--${f.flag}`, f.min),
    f.default,
  );

program
  // One line for a bad flag, like every other start-up failure.
  .configureOutput({
    outputError: (text, write) => write(`baton-proxy: ${text.replace(/^error: /, "").trimEnd()} (see --help)\n`),
  })
  .action(async (opts: { config?: string; http?: string; server?: string } & ConnectionLimits) => {
    const configPath = opts.config || undefined;
    let config: ProxyConfig | null = null;
    let listen: ListenAddress;
    let server: string;
    try {
      if (configPath) config = loadConfigFile(configPath);
      const fallback = config?.login ? DEFAULT_LISTEN : DEFAULT_LISTEN_NO_LOGIN;
      listen =
        opts.http !== undefined
          ? parseListenAddress(opts.http, "--http")
          : parseListenAddress(config?.listen ?? fallback, config?.listen ? "listen" : "--http");
      server = config ? config.server : checkServerUrl(opts.server ?? (process.env.BATON_SERVER || DEFAULT_SERVER));
    } catch (error) {
      return fatal((error as Error).message);
    }
    const level = process.env.BATON_PROXY_LOG_LEVEL || "info";
    if (!isLogLevel(level))
      return fatal(`BATON_PROXY_LOG_LEVEL must be one of debug, info, warn, error (got "${level}")`);
    const log = createLogger(level);
    if (config && opts.server !== undefined)
      log.warn("--server is ignored: the config's server is used", { server: config.server });
    let proxy: RunningProxy | undefined;
    let stopping = false;
    const stop = (signal: string) => {
      if (stopping) return;
      stopping = true;
      log.info("shutting down", { signal });
      const force = setTimeout(() => {
        log.error("shutdown took longer than 15s; exiting");
        process.exit(1);
      }, 15_000);
      force.unref();
      if (!proxy) return;
      proxy.close().then(() => process.exit(0));
    };
    process.on("SIGTERM", () => stop("SIGTERM"));
    process.on("SIGINT", () => stop("SIGINT"));
    try {
      const connections = Object.fromEntries(
        CONNECTION_FLAGS.map((f) => [f.key, opts[f.key]]),
      ) as unknown as ConnectionLimits;
      proxy = await startProxy({ config, server, listen, uiDir: defaultUiDir(), log, connections });
    } catch (error) {
      const e = error as NodeJS.ErrnoException;
      const where = `${listen.host}:${listen.port}`;
      if (e.code === "EADDRINUSE") return fatal(`cannot listen on ${where}: the address is already in use`);
      if (e.code === "EACCES") return fatal(`cannot listen on ${where}: permission denied`);
      return fatal(`cannot start: ${e.message}`);
    }
    if (!config?.login) {
      if (isLoopbackHost(listen.host))
        log.warn("no login: requests are forwarded as they arrive (local development)", { server });
      else
        log.warn(
          `no login while listening on ${proxy.bind}: anyone who can reach this address uses ${server} through this proxy with whatever it allows (every endpoint, tokens included, when it runs --auth none); give a config with login, or listen on 127.0.0.1`,
          { server, bind: proxy.bind },
        );
    }
    if (stopping) {
      await proxy.close();
      process.exit(0);
    }
  });

function checkServerUrl(value: string): string {
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {}
  if (!url || (url.protocol !== "http:" && url.protocol !== "https:"))
    throw new Error(`--server "${value}" is not an http:// or https:// URL`);
  return value;
}

function wholeNumber(flag: string, min: number): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < min)
      throw new InvalidArgumentError(`${flag} must be a whole number of at least ${min} (got "${value}")`);
    return n;
  };
}

function fatal(message: string): never {
  process.stderr.write(`baton-proxy: ${message}\n`);
  process.exit(1);
}

// Every flag is also BATON_PROXY_<FLAG> (docs/deploy.md "Configuration from the environment").
try {
  readFlagsFromEnvironment(program, "BATON_PROXY_");
} catch (error) {
  fatal((error as Error).message);
}
await program.parseAsync(process.argv);
