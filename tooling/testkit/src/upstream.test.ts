import { describe, expect, it } from "vitest";
import { request } from "./http.js";
import { json, startUpstream } from "./upstream.js";

describe("programmable upstream", () => {
  it("records each request with method, path, headers and body, and answers with the current handler", async () => {
    const upstream = await startUpstream((_r, res) => json(res, 201, { ok: true }));
    try {
      const first = await request(upstream.url, "POST", "/charge?x=1", '{"amount":12345678901234567890}', {
        "x-test": "yes",
      });
      expect(first.status).toBe(201);
      expect(first.body).toEqual({ ok: true });
      upstream.handle((_r, res) => json(res, 503, { down: true }));
      expect(
        (await request(upstream.url, "GET", "/health")).status,
        "a replaced handler must answer the next request",
      ).toBe(503);
      expect(upstream.requests.map((r) => `${r.method} ${r.path}`)).toEqual(["POST /charge?x=1", "GET /health"]);
      expect(upstream.requests[0]!.headers["x-test"]).toBe("yes");
      expect(upstream.requests[0]!.body).toContain("12345678901234567890");
    } finally {
      await upstream.close();
    }
  });

  it("parses JSON answers losslessly and leaves other bodies as text", async () => {
    const upstream = await startUpstream((r, res) => {
      if (r.path === "/text") {
        res.writeHead(200, { "content-type": "text/plain" });
        res.end("plain");
      } else {
        res.writeHead(200, { "content-type": "application/json" });
        res.end('{"n":12345678901234567890}');
      }
    });
    try {
      const big = await request(upstream.url, "GET", "/json");
      expect(String(big.body.n), "big integers must not be rounded by the test client").toBe("12345678901234567890");
      expect((await request(upstream.url, "GET", "/text")).body).toBe("plain");
    } finally {
      await upstream.close();
    }
  });
});
