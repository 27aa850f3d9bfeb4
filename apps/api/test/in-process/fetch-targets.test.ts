// Fetch targets through the real engine, the system resolver and real sockets: one recording
// service listens on 127.0.0.1, 127.0.0.2 and ::1 (same port), and a fetch task calls it
// through every spelling of a loopback address --fetch-deny must catch. Each is refused by
// default when the server listens beyond loopback, refused under a --fetch-deny list naming
// loopback and metadata hosts, and reaches the service when allowed (bound to loopback, or the class
// re-allowed). The engine runs in-process with the config a `--http 0.0.0.0:…` server would
// have, so nothing here listens beyond loopback.

import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { ServerConfig } from "../../src/config.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, openHarness } from "../support/engine-harness.js";

let h: Harness;
let port: number;
const servers: Server[] = [];
const seen: { host: string | undefined; local: string | undefined }[] = [];

async function listen(host: string, p: number): Promise<number> {
  const server = createServer((req, res) => {
    seen.push({ host: req.headers.host, local: req.socket.localAddress });
    res.writeHead(200, { "content-type": "application/json" });
    res.end('{"reached":true}');
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(p, host, () => resolve());
  });
  servers.push(server);
  return (server.address() as AddressInfo).port;
}

beforeAll(async () => {
  h = await openHarness();
  port = await listen("127.0.0.1", 0);
  await listen("127.0.0.2", port);
  await listen("::1", port);
});
afterAll(async () => {
  for (const s of servers) await new Promise((r) => s.close(r));
  await h?.close();
});

let n = 0;
/** Runs one fetch of `http://<spelling>:<port>/x` on an engine with `config`; the instance's error, or null when it reached the service. */
async function fetchThrough(spelling: string, config: Partial<ServerConfig>, p = port) {
  const name = `target-${n++}`;
  const id = await h.deployAndStart({
    name,
    tasks: [{ id: "call", action: { type: "fetch", url: `http://${spelling}:${p}/x` }, timeout: { for: "1000" } }],
  });
  const before = seen.length;
  await h.newEngine(`engine-${name}`, config).tick();
  const view = await h.get(id);
  return {
    status: view.status,
    errorCode: view.errorCode,
    errorMessage: view.errorMessage,
    reached: seen.length - before,
  };
}

const BEYOND_LOOPBACK = { host: "0.0.0.0" };
const NAMED_HOSTS_DENY = ["127.0.0.1", "localhost", "::1", "169.254.169.254"];
const SPELLINGS = ["0.0.0.0", "[::]", "[::ffff:127.0.0.1]", "127.0.0.2", "localhost", "127.0.0.1", "[::1]"];

describe("fetch tasks and this machine's own services", () => {
  it.each(SPELLINGS)("refuse %s by default when the server listens beyond loopback", async (spelling) => {
    const result = await fetchThrough(spelling, BEYOND_LOOPBACK);
    expect(result.errorCode).toBe("pre.error");
    expect(result.errorMessage).toMatch(/refused: .*(loopback|unspecified) address/);
    expect(result.errorMessage).toMatch(/--fetch-allow-class (loopback|unspecified,loopback) allows them/);
    expect(result.reached, "the call never left").toBe(0);
  });

  it.each(SPELLINGS)("refuse %s under a --fetch-deny list of named loopback and metadata hosts", async (spelling) => {
    const result = await fetchThrough(spelling, { ...BEYOND_LOOPBACK, fetchDenyHosts: NAMED_HOSTS_DENY });
    expect(result.errorCode).toBe("pre.error");
    expect(result.errorMessage).toMatch(/refused: .*(--fetch-deny \(entry "|unspecified address|loopback address)/);
    expect(result.reached).toBe(0);
  });

  it.each(SPELLINGS)("reach the service through %s when allowed", async (spelling) => {
    // Bound to loopback allows loopback; 0.0.0.0 and [::] also need their class re-allowed.
    const unspecified = spelling === "0.0.0.0" || spelling === "[::]";
    const result = await fetchThrough(spelling, {
      host: "127.0.0.1",
      fetchAllowClasses: unspecified ? ["unspecified"] : [],
    });
    expect(result, JSON.stringify(result)).toMatchObject({ status: "completed", reached: 1 });
    expect(seen.at(-1)!.host, "Host names what the task asked for").toBe(new URL(`http://${spelling}:${port}`).host);
  });

  it("deny by address: --fetch-deny 127.0.0.0/8,::1 catches every loopback spelling on a loopback-bound server", async () => {
    for (const spelling of ["[::ffff:127.0.0.1]", "127.0.0.2", "localhost", "127.0.0.1", "[::1]"]) {
      const result = await fetchThrough(spelling, { host: "127.0.0.1", fetchDenyHosts: ["127.0.0.0/8", "::1"] });
      expect(result.errorMessage, spelling).toMatch(/refused by --fetch-deny \(entry "(127\.0\.0\.0\/8|::1)"\)$/);
      expect(result.reached).toBe(0);
    }
  });

  it.each(SPELLINGS)(
    "reach the service through %s from a server beyond loopback with --fetch-allow-class",
    async (spelling) => {
      const result = await fetchThrough(spelling, {
        ...BEYOND_LOOPBACK,
        fetchAllowClasses: ["loopback", "unspecified"],
      });
      expect(result).toMatchObject({ status: "completed", reached: 1 });
    },
  );
});

describe("fetch tasks and the cloud metadata address", () => {
  it.each(["169.254.169.254", "[::ffff:a9fe:a9fe]"])(
    "refuse %s by default, even bound to loopback",
    async (spelling) => {
      const result = await fetchThrough(spelling, { host: "127.0.0.1" }, 80);
      expect(result.errorCode).toBe("pre.error");
      expect(result.errorMessage).toContain(
        "a link-local address: link-local addresses (cloud metadata among them) are refused by default; --fetch-allow-class link-local allows them",
      );
    },
  );

  it.each(["169.254.169.254", "[::ffff:a9fe:a9fe]"])(
    "try to connect to %s when --fetch-allow-class link-local",
    async (spelling) => {
      // Whatever answers there (nothing, or a sandbox's metadata service), the call is attempted, not refused by policy.
      const result = await fetchThrough(spelling, { host: "127.0.0.1", fetchAllowClasses: ["link-local"] }, 80);
      expect(result.errorMessage ?? "").not.toContain("refused: ");
    },
  );
});

describe("baton-api start-up with bad --fetch-* flags", () => {
  it("exits naming the flag and the entry, before opening the database", async () => {
    const { runApi } = await import("../support/auth-fixtures.js");
    for (const [args, message] of [
      [
        ["--fetch-deny", "10.0.0.0/33"],
        '--fetch-deny "10.0.0.0/33" is not a CIDR range; expected e.g. 10.0.0.0/8 or fd00::/8',
      ],
      [["--fetch-allow", "http://x"], '--fetch-allow "http://x" is not a host, *.suffix, IP address or CIDR range'],
      [["--fetch-allow-class", "metadata"], '--fetch-allow-class "metadata" is not an address class'],
    ] as const) {
      const run = await runApi([...args, "--data-dir", "memory://", "--http", "127.0.0.1:0"]);
      expect(run.code, run.stderr).toBe(1);
      expect(run.stderr).toContain(message);
    }
  }, 120_000);
});
