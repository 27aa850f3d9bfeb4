import { execFile, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { client, type ListeningProcess, spawnListening } from "@baton/testkit";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { parse } from "yaml";
import { cookiePair, requireBuilt } from "./support/proxy-process.js";

// docker/*.Dockerfile and docker/compose.yaml, checked without a Docker engine: the images'
// build step (docker/deploy.sh: `pnpm deploy --prod` plus the UI) runs here, and its output is
// started with the image's ENTRYPOINT, CMD, ENV and HEALTHCHECK and compose's flags and proxy
// config, as the containers would be. Compose itself is parsed and cross-checked.
vi.setConfig({ testTimeout: 120_000, hookTimeout: 240_000 });

const run = promisify(execFile);
const root = fileURLToPath(new URL("../../../", import.meta.url));
const dockerDir = join(root, "docker");

interface Dockerfile {
  stages: { from: string; lines: string[] }[];
  env: Record<string, string>;
  user: string;
  entrypoint: string[];
  cmd: string[];
  healthcheck: string[];
}

/** The instructions of a Dockerfile (continuation lines joined), by stage; the final stage's run settings. */
function readDockerfile(name: string): Dockerfile {
  const text = readFileSync(join(dockerDir, name), "utf8").replace(/\\\n/g, " ");
  const stages: Dockerfile["stages"] = [];
  for (const line of text.split("\n").map((l) => l.trim())) {
    if (line === "" || line.startsWith("#")) continue;
    if (line.startsWith("FROM ")) stages.push({ from: line.slice(5), lines: [] });
    else if (stages.length > 0) stages.at(-1)!.lines.push(line.replace(/\s+/g, " ")); // an ARG before FROM names the base image
  }
  const final = stages.at(-1)!.lines;
  const json = (prefix: string) => {
    const line = final.find((l) => l.startsWith(prefix));
    if (!line) throw new Error(`${name}: no ${prefix.trim()} in the final stage`);
    return JSON.parse(line.slice(line.indexOf("["))) as string[];
  };
  const env: Record<string, string> = {};
  for (const line of final.filter((l) => l.startsWith("ENV ")))
    for (const m of line.slice(4).matchAll(/(\w+)=(\S+)/g)) env[m[1]!] = m[2]!;
  const user =
    final
      .filter((l) => l.startsWith("USER "))
      .at(-1)
      ?.slice(5) ?? "root";
  return {
    stages,
    env,
    user,
    entrypoint: json("ENTRYPOINT "),
    cmd: json("CMD "),
    healthcheck: ["CMD", ...json("HEALTHCHECK ")],
  };
}

/** Runs a HEALTHCHECK/compose `CMD` exec form (a node one-liner) here, aimed at `port`; resolves with its exit code. */
function runHealthcheck(command: string[], port: number): Promise<number | null> {
  expect(command[0]).toBe("CMD");
  const args = command.slice(2).map((a) => a.replace(/127\.0\.0\.1:\d+/, `127.0.0.1:${port}`));
  expect(command[1]).toBe("node");
  const child = spawn(process.execPath, args, { stdio: "ignore" });
  return new Promise((resolve) => child.once("exit", resolve));
}

const apiImage = readDockerfile("api.Dockerfile");
const proxyImage = readDockerfile("proxy.Dockerfile");
const compose = parse(readFileSync(join(dockerDir, "compose.yaml"), "utf8"), { merge: true }) as {
  services: Record<string, any>;
  volumes: Record<string, unknown>;
};
const proxyConfigText = readFileSync(join(dockerDir, "proxy.yaml"), "utf8");
const proxyConfig = parse(proxyConfigText) as any;

/** `--name=value` or `--name value` from a command list. */
function flag(args: string[], name: string): string | undefined {
  for (let i = 0; i < args.length; i++) {
    if (args[i] === name) return args[i + 1];
    if (args[i]!.startsWith(`${name}=`)) return args[i]!.slice(name.length + 1);
  }
  return undefined;
}

describe("the Dockerfiles", () => {
  it.each([
    ["api", apiImage],
    ["proxy", proxyImage],
  ])("%s: multi-stage, deploy.sh in the build stage, non-root, with a health check", (app, image) => {
    expect(image.stages.length).toBeGreaterThanOrEqual(2);
    expect(image.stages[0]!.lines.some((l) => l.includes(`sh docker/deploy.sh ${app} /out`))).toBe(true);
    expect(image.stages.at(-1)!.lines).toContain("COPY --from=build /out /app");
    expect(image.user).not.toMatch(/^(root|0)$/);
    expect(image.entrypoint).toEqual(["node", "/app/dist/main.js"]);
    expect(image.healthcheck.slice(0, 2)).toEqual(["CMD", "node"]);
  });
});

describe("docker/compose.yaml", () => {
  const services = compose.services;
  const apiServices = Object.keys(services).filter((name) => /^api-\d+$/.test(name));

  it("runs PostgreSQL, two API replicas, the proxy and a one-shot admin-token bootstrap", () => {
    expect(services.postgres.image).toMatch(/^postgres:\d+/);
    expect(apiServices).toEqual(["api-1", "api-2"]);
    expect(services.proxy.build.dockerfile).toBe("docker/proxy.Dockerfile");
    expect(services.bootstrap.entrypoint.join(" ")).toContain("tokens create --label bootstrap --perms admin");
    expect(services.bootstrap.restart).toBe("no");
  });

  it("builds every image it names from a Dockerfile that exists, with the repository as context", () => {
    for (const [name, service] of Object.entries(services)) {
      if (service.build === undefined) {
        expect(service.image, name).toMatch(/^postgres:/);
        continue;
      }
      expect(service.build.context, name).toBe("..");
      expect(existsSync(join(dockerDir, "..", service.build.dockerfile)), name).toBe(true);
      expect(service.image, name).toBe(
        service.build.dockerfile.includes("proxy") ? "baton-proxy:local" : "baton-api:local",
      );
    }
  });

  it("depends only on services that exist, healthy ones having a health check and one-shots not restarting", () => {
    for (const [name, service] of Object.entries(services)) {
      for (const [target, { condition }] of Object.entries<any>(service.depends_on ?? {})) {
        expect(services[target], `${name} depends on ${target}`).toBeDefined();
        if (condition === "service_healthy") expect(services[target].healthcheck, target).toBeDefined();
        else expect(condition).toBe("service_completed_successfully");
        if (condition === "service_completed_successfully") expect(services[target].restart).toBe("no");
      }
    }
  });

  it("mounts only declared volumes and files that exist", () => {
    for (const [name, service] of Object.entries(services)) {
      for (const volume of service.volumes ?? []) {
        const [source] = String(volume).split(":");
        if (source!.startsWith(".")) expect(existsSync(join(dockerDir, source!)), `${name}: ${volume}`).toBe(true);
        else expect(compose.volumes, `${name}: ${volume}`).toHaveProperty(source!);
      }
    }
  });

  it("has the proxy and the API replicas agree on the JWT secret file, issuer and audience, and the address", () => {
    const secretFile = proxyConfig.token.secret_file as string;
    const secretDir = secretFile.slice(0, secretFile.lastIndexOf("/"));
    const writes = services["secrets-init"].entrypoint.join(" ");
    expect(writes).toContain(secretFile);
    for (const name of [...apiServices, "proxy"])
      expect(services[name].volumes, name).toContain(`secrets:${secretDir}:ro`);
    const apiHost = new URL(proxyConfig.server);
    for (const name of apiServices) {
      const command = services[name].command as string[];
      expect(flag(command, "--jwt-secret-file")).toBe(secretFile);
      expect(flag(command, "--jwt-issuer")).toBe(proxyConfig.token.issuer);
      expect(flag(command, "--jwt-audience")).toBe(proxyConfig.token.audience);
      expect(flag(command, "--auth")).toBe("token");
      const port = flag(command, "--http")!.split(":").at(-1);
      expect(apiHost.port).toBe(port);
      expect(services[name].networks.default.aliases).toContain(apiHost.hostname);
      expect(services[name].healthcheck.test.join(" ")).toContain(`127.0.0.1:${port}/readyz`);
      expect(services[name].ports[0]).toMatch(new RegExp(`:${port}$`));
      expect(services[name].environment.DATABASE_URL).toMatch(/^postgres:\/\/baton:baton@postgres:5432\/baton$/);
    }
    const proxyPort = proxyConfig.listen.split(":").at(-1);
    expect(services.proxy.ports[0]).toMatch(new RegExp(`:${proxyPort}:${proxyPort}$`));
    expect(services.proxy.healthcheck.test.join(" ")).toContain(`127.0.0.1:${proxyPort}/`);
    expect(services.proxy.volumes).toContain("./proxy.yaml:/etc/baton/proxy.yaml:ro");
    expect(services.proxy.environment.BATON_PROXY_CONFIG).toBe("/etc/baton/proxy.yaml");
  });
});

describe("the images' contents, started as compose starts them", () => {
  const work = mkdtempSync(join(tmpdir(), "baton-images-"));
  const apiDir = join(work, "api");
  const proxyDir = join(work, "proxy");
  const secretFile = join(work, "jwt-secret");
  const dataDir = join(work, "data");
  let api: ListeningProcess;
  let proxy: ListeningProcess;
  let adminToken: string;

  /** An image path (/app/…, the secret file) mapped into this test's folders. */
  const inImage = (dir: string) => (value: string) =>
    value.replace(/^\/app\//, `${dir}/`).replace(proxyConfig.token.secret_file, secretFile);

  beforeAll(async () => {
    requireBuilt();
    if (!existsSync(join(root, "apps/proxy/web/dist/index.html"))) throw new Error("build @baton/web first");
    await run("sh", ["docker/deploy.sh", "api", apiDir], { cwd: root });
    await run("sh", ["docker/deploy.sh", "proxy", proxyDir], { cwd: root });
    writeFileSync(secretFile, `${"s".repeat(64)}\n`);
    // Neither copy may lean on the workspace: nothing under /tmp sees the repository's node_modules.
    const env = { PATH: process.env.PATH!, HOME: work, NODE_ENV: "production" };

    // bootstrap: `tokens create` on the (here PGlite) database, then api-1's command line.
    const [node, main] = apiImage.entrypoint.map(inImage(apiDir));
    expect(node).toBe("node");
    const minted = await run(
      process.execPath,
      [main!, "tokens", "create", "--label", "bootstrap", "--perms", "admin", "--data-dir", dataDir],
      { cwd: work, env },
    );
    adminToken = minted.stdout.trim();
    expect(adminToken).toMatch(/^svc_sk_/);
    const command = (compose.services["api-1"].command as string[]).map(inImage(apiDir));
    const args = [...command.filter((a) => !a.startsWith("--http")), "--http", "127.0.0.1:0", "--data-dir", dataDir];
    api = await spawnListening("baton-api (image)", main!, args, env, 60_000);

    const config = join(work, "proxy.yaml");
    writeFileSync(
      config,
      proxyConfigText.replace(proxyConfig.token.secret_file, secretFile).replace(/^server: .*$/m, `server: ${api.url}`),
    );
    const [, proxyMain] = proxyImage.entrypoint.map(inImage(proxyDir));
    const proxyEnv = Object.fromEntries(Object.entries(proxyImage.env).map(([k, v]) => [k, inImage(proxyDir)(v)]));
    proxy = await spawnListening(
      "baton-proxy (image)",
      proxyMain!,
      ["--http", "127.0.0.1:0"],
      { ...env, ...proxyEnv, BATON_PROXY_CONFIG: config },
      30_000,
    );
  });

  afterAll(async () => {
    await proxy?.terminate();
    await api?.terminate();
  });

  it("the API image's health check (readiness, /readyz) passes and /healthz answers ok", async () => {
    const port = Number(new URL(api.url).port);
    expect(await runHealthcheck(apiImage.healthcheck, port)).toBe(0);
    expect(await runHealthcheck(compose.services["api-1"].healthcheck.test, port)).toBe(0);
    const res = await client(api.url).get("/healthz");
    expect(res.status).toBe(200);
    expect(res.body.status).toBe("ok");
  });

  it("the bootstrap token is an admin token of the API, which requires one", async () => {
    expect((await client(api.url).get("/api/tokens")).status).toBe(401);
    const res = await client(api.url, { authorization: `Bearer ${adminToken}` }).get("/api/tokens");
    expect(res.status).toBe(200);
    expect(res.body.items.map((t: { label: string }) => t.label)).toEqual(["bootstrap"]);
  });

  it("the proxy image serves the built UI, passes its health check and forwards /healthz", async () => {
    const port = Number(new URL(proxy.url).port);
    expect(await runHealthcheck(proxyImage.healthcheck, port)).toBe(0);
    expect(await runHealthcheck(compose.services.proxy.healthcheck.test, port)).toBe(0);
    const page = await fetch(`${proxy.url}/`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<div id="root">');
    expect((await client(proxy.url).get("/healthz")).body.status).toBe("ok");
  });

  it("signs in the documented example user, whose JWT the API accepts as admin", async () => {
    const login = await client(proxy.url).post("/auth/login", { email: "admin@example.com", password: "change-me" });
    expect(login.status, login.text).toBe(200);
    const cookie = cookiePair(login, "baton_session");
    const res = await client(proxy.url, { cookie }).get("/api/tokens");
    expect(res.status, res.text).toBe(200);
  });
});
