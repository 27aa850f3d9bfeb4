import { createServer } from "node:net";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { client } from "@baton/testkit";
import { describe, expect, it, vi } from "vitest";
import { type ProxyProcess, requireBuilt, runProxy, startProxy, tempFiles } from "./support/proxy-process.js";

vi.setConfig({ testTimeout: 30_000 });
requireBuilt();

const oneLine = (stderr: string) => {
  expect(stderr.trimEnd().split("\n"), stderr).toHaveLength(1);
  return stderr.trim();
};

describe("baton-proxy start-up", () => {
  it("prints its version", async () => {
    const { code, stdout } = await runProxy(["--version"]);
    const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
    expect(code).toBe(0);
    expect(stdout.trim()).toBe(pkg.version);
  });

  it("exits 1 with one line for an unreadable config", async () => {
    const { code, stderr } = await runProxy(["--config", "/nonexistent/proxy.yaml"]);
    expect(code).toBe(1);
    expect(oneLine(stderr)).toBe("baton-proxy: config /nonexistent/proxy.yaml: cannot read the file (no such file)");
  });

  it("exits 1 with one line naming every bad field of an invalid config", async () => {
    const dir = tempFiles({
      "proxy.yaml": "server: http://a\nlogin: { passwords: [{ email: a@b, hash: plaintext }] }\nextra: 1\n",
    });
    const { code, stderr } = await runProxy(["--config", join(dir, "proxy.yaml")]);
    expect(code).toBe(1);
    const line = oneLine(stderr);
    expect(line).toContain("extra: unknown field");
    expect(line).toContain("login.passwords[0].hash: must be a bcrypt hash");
    expect(line).toContain("token: required once login has passwords or providers");
    expect(line, "the plaintext stays out of the message").not.toContain("plaintext,");
  });

  it("exits 1 for an unknown flag and a bad --http or --server", async () => {
    const unknown = await runProxy(["--bogus"]);
    expect(unknown.code).toBe(1);
    expect(oneLine(unknown.stderr)).toBe("baton-proxy: unknown option '--bogus' (see --help)");
    expect(oneLine((await runProxy(["--config"])).stderr)).toBe(
      "baton-proxy: option '--config <path>' argument missing (see --help)",
    );
    const http = await runProxy(["--http", "localhost"]);
    expect(http.code).toBe(1);
    expect(oneLine(http.stderr)).toBe(
      'baton-proxy: --http "localhost" is not a listen address; expected HOST:PORT, :PORT or PORT (0-65535)',
    );
    const server = await runProxy(["--server", "api:8449"]);
    expect(oneLine(server.stderr)).toBe('baton-proxy: --server "api:8449" is not an http:// or https:// URL');
  });

  it("exits 1 with one line when the port is taken", async () => {
    const blocker = createServer();
    await new Promise<void>((r) => blocker.listen(0, "127.0.0.1", r));
    const port = (blocker.address() as { port: number }).port;
    try {
      const { code, stderr } = await runProxy(["--http", `127.0.0.1:${port}`]);
      expect(code).toBe(1);
      expect(stderr.trim().split("\n").at(-1)).toBe(
        `baton-proxy: cannot listen on 127.0.0.1:${port}: the address is already in use`,
      );
    } finally {
      blocker.close();
    }
  });

  it("listens on the config's listen unless --http overrides it", async () => {
    const dir = tempFiles({});
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, "127.0.0.1", r));
    const port = (probe.address() as { port: number }).port;
    await new Promise<void>((r) => probe.close(() => r()));
    writeFileSync(join(dir, "proxy.yaml"), `server: http://127.0.0.1:1\nlisten: 127.0.0.1:${port}\n`);
    let proxy: ProxyProcess = await startProxy(["--config", join(dir, "proxy.yaml"), "--http", "127.0.0.1:0"]);
    expect(proxy.url).not.toBe(`http://127.0.0.1:${port}`);
    await proxy.stop();
    proxy = await startProxy(["--config", join(dir, "proxy.yaml")], {}, { useConfigListen: true });
    expect(proxy.url).toBe(`http://127.0.0.1:${port}`);
    expect(await proxy.stop(), "SIGTERM stops cleanly").toBe(0);
  });
});

/** The process's stderr once it contains `text` (lines logged just after `listening` arrive a moment later). */
async function stderrWith(proxy: ProxyProcess, text: string): Promise<string> {
  for (let i = 0; i < 100 && !proxy.stderr().includes(text); i++) await new Promise((r) => setTimeout(r, 50));
  return proxy.stderr();
}

describe("where baton-proxy listens without a login", () => {
  it("binds loopback by default: 127.0.0.1:8448", async () => {
    // Port 8448 may be taken on a shared machine: refusing it names the address tried, which is as telling.
    const child = await startProxy(["--server", "http://127.0.0.1:1"], {}, { useConfigListen: true }).catch(
      (error: Error) => error,
    );
    if (child instanceof Error) {
      expect(child.message).toContain("baton-proxy: cannot listen on 127.0.0.1:8448: the address is already in use");
      return;
    }
    try {
      expect(child.stderr()).toContain('"msg":"listening","url":"http://127.0.0.1:8448","bind":"127.0.0.1:8448"');
      const line = '"msg":"no login: requests are forwarded as they arrive (local development)"';
      expect(await stderrWith(child, line)).toContain(line);
    } finally {
      await child.stop();
    }
  });

  it("binds all interfaces only when --http says so, logs that real address and warns", async () => {
    const proxy = await startProxy(["--server", "http://127.0.0.1:1", "--http", ":0"]);
    try {
      const port = new URL(proxy.url).port;
      expect(proxy.stderr()).toContain(`"bind":"0.0.0.0:${port}"`);
      const warning = `"level":"warn","msg":"no login while listening on 0.0.0.0:${port}: anyone who can reach this address uses http://127.0.0.1:1 through this proxy with whatever it allows (every endpoint, tokens included, when it runs --auth none); give a config with login, or listen on 127.0.0.1"`;
      expect(await stderrWith(proxy, warning)).toContain(warning);
    } finally {
      await proxy.stop();
    }
  });

  it("answers only Host names of this machine on loopback, so a rebound DNS name cannot reach the API", async () => {
    const { request } = await import("node:http");
    const proxy = await startProxy(["--server", "http://127.0.0.1:1"]);
    const statusFor = (host: string) =>
      new Promise<number>((resolve, reject) => {
        const req = request(`${proxy.url}/api/instances`, { headers: { host } }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on("error", reject);
        req.end();
      });
    try {
      expect(await statusFor("attacker.example:8448")).toBe(403);
      expect(await statusFor(new URL(proxy.url).host), "its own address reaches the (absent) API").toBe(502);
    } finally {
      await proxy.stop();
    }
  });

  it("does not warn on an explicit loopback address", async () => {
    const proxy = await startProxy(["--server", "http://127.0.0.1:1", "--http", "127.0.0.1:0"]);
    expect(await stderrWith(proxy, "no login: requests are forwarded")).not.toContain("no login while listening");
    await proxy.stop();
  });
});

describe("baton-proxy shutdown", () => {
  it("exits 0 on SIGINT, logging that it shuts down", async () => {
    const proxy = await startProxy(["--server", "http://127.0.0.1:1"]);
    const exited = new Promise<number | null>((r) => proxy.child.once("exit", (code) => r(code)));
    proxy.child.kill("SIGINT");
    expect(await exited).toBe(0);
    expect(proxy.stderr()).toContain('"msg":"shutting down","signal":"SIGINT"');
  });

  it("lets a request in flight finish before exiting on SIGTERM", async () => {
    const { startUpstream } = await import("@baton/testkit");
    const slow = await startUpstream((_r, res) => {
      setTimeout(() => {
        res.writeHead(200, { "content-type": "text/plain" });
        res.end("late but complete");
      }, 700);
    });
    const proxy = await startProxy(["--server", slow.url]);
    try {
      const pending = fetch(`${proxy.url}/api/slow`).then((r) => r.text());
      await new Promise((r) => setTimeout(r, 200));
      const stopped = proxy.stop();
      expect(await pending).toBe("late but complete");
      expect(await stopped).toBe(0);
    } finally {
      await slow.close();
    }
  });
});

describe("serving the UI", () => {
  it("serves BATON_PROXY_UI_DIR with an SPA fallback and long-cached assets", async () => {
    const dir = tempFiles({ "index.html": "<!doctype html><title>ui</title>" });
    mkdirSync(join(dir, "assets"));
    writeFileSync(join(dir, "assets", "app-1a2b.js"), "export {}");
    const proxy = await startProxy(["--server", "http://127.0.0.1:1"], { BATON_PROXY_UI_DIR: dir });
    try {
      const page = await client(proxy.url).get("/instances/123");
      expect(page.status).toBe(200);
      expect(page.text).toContain("<title>ui</title>");
      const asset = await client(proxy.url).get("/assets/app-1a2b.js");
      expect(asset.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
      expect((await client(proxy.url).get("/assets/missing.js")).status).toBe(404);
    } finally {
      await proxy.stop();
    }
  });

  it("answers / with a page saying the UI is not built when its folder is missing", async () => {
    const proxy = await startProxy(["--server", "http://127.0.0.1:1"], { BATON_PROXY_UI_DIR: "/nonexistent/ui" });
    try {
      const res = await client(proxy.url).get("/");
      expect(res.status).toBe(200);
      expect(res.text).toContain("The web UI is not built");
    } finally {
      await proxy.stop();
    }
  });
});
