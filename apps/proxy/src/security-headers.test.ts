import bcrypt from "bcryptjs";
import { createLogger } from "@baton/log";
import { startUpstream, type Upstream } from "@baton/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createProxyApp } from "./app.js";
import { parseConfig } from "./config.js";

const quiet = createLogger("error", () => {});
let upstream: Upstream;
beforeAll(async () => {
  upstream = await startUpstream((_r, res) => {
    // The API's own answer tries to loosen the policy: the proxy's wins.
    res.writeHead(200, { "content-type": "application/json", "x-frame-options": "ALLOWALL" });
    res.end("{}");
  });
});
afterAll(() => upstream.close());

const app = () => {
  const config = parseConfig(`
server: ${upstream.url}
login: { passwords: [{ email: ann@example.com, hash: "${bcrypt.hashSync("pw", 4)}" }] }
token: { secret: "${"t".repeat(32)}" }
`);
  return createProxyApp({ config, server: config.server, uiDir: "/nonexistent", log: quiet });
};

describe("every answer of the proxy", () => {
  it("carries the CSP with frame-ancestors 'none', X-Frame-Options DENY, nosniff and Referrer-Policy", async () => {
    const proxy = app();
    const answers: [string, RequestInit, number][] = [
      ["/", {}, 200], // the UI (here: the not-built page)
      ["/assets/missing.js", {}, 404],
      ["/auth/session", {}, 200],
      ["/auth/login/nobody", {}, 404],
      ["/api/instances", {}, 401],
      ["/healthz", {}, 200], // forwarded
      ["/metrics", {}, 200],
      ["/api/x", { method: "POST", headers: { "content-type": "text/plain" } }, 415],
      ["/nowhere", { method: "DELETE", headers: { "sec-fetch-site": "same-origin" } }, 404],
    ];
    for (const [path, init, status] of answers) {
      const res = await proxy.request(`http://proxy.test${path}`, init);
      expect(res.status, path).toBe(status);
      const csp = res.headers.get("content-security-policy");
      expect(csp, path).toBe(
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
      );
      expect(res.headers.get("x-frame-options"), path).toBe("DENY");
      expect(res.headers.get("x-content-type-options"), path).toBe("nosniff");
      expect(res.headers.get("referrer-policy"), path).toBe("no-referrer");
      expect(res.headers.get("strict-transport-security"), "HSTS is the TLS terminator's call").toBeNull();
    }
  });
});
