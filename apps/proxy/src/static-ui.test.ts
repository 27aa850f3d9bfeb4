import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { defaultUiDir, serveUi } from "./static-ui.js";

function builtUi(): string {
  const dir = mkdtempSync(join(tmpdir(), "baton-ui-"));
  mkdirSync(join(dir, "assets"));
  writeFileSync(join(dir, "index.html"), "<!doctype html><div id=root></div>");
  writeFileSync(join(dir, "assets", "index-abc123.js"), "console.log(1)");
  writeFileSync(join(dir, "favicon.svg"), "<svg/>");
  return dir;
}

describe("serveUi", () => {
  const dir = builtUi();

  it("serves index.html at / without long caching", async () => {
    const res = await serveUi(dir, "/", "GET");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(res.headers.get("cache-control")).toBe("no-cache");
    expect(await res.text()).toContain("id=root");
  });

  it("serves hashed assets with a one-year immutable cache", async () => {
    const res = await serveUi(dir, "/assets/index-abc123.js", "GET");
    expect(res.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(res.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(await res.text()).toBe("console.log(1)");
  });

  it("serves other files with their type", async () => {
    const res = await serveUi(dir, "/favicon.svg", "GET");
    expect(res.headers.get("content-type")).toBe("image/svg+xml");
  });

  it("falls back to index.html for client-side routes", async () => {
    const res = await serveUi(dir, "/instances/0192abcd", "GET");
    expect(res.status).toBe(200);
    expect(await res.text()).toContain("id=root");
  });

  it("answers 404 for a missing asset or file instead of the app", async () => {
    expect((await serveUi(dir, "/assets/gone-123.js", "GET")).status).toBe(404);
    expect((await serveUi(dir, "/robots.txt", "GET")).status).toBe(404);
  });

  it("never serves a file outside the folder", async () => {
    for (const path of ["/../../etc/passwd", "/%2e%2e/%2e%2e/etc/passwd", "/assets/..%2f..%2fetc%2fpasswd"]) {
      const res = await serveUi(dir, path, "GET");
      expect(await res.text(), path).not.toContain("root:");
    }
  });

  it("answers HEAD with headers and no body", async () => {
    const res = await serveUi(dir, "/", "HEAD");
    expect(res.headers.get("content-length")).toBe(String("<!doctype html><div id=root></div>".length));
    expect(await res.text()).toBe("");
  });

  it("says the UI is not built when the folder does not exist", async () => {
    const res = await serveUi("/nonexistent/ui", "/", "GET");
    expect(res.status).toBe(200);
    expect(await res.text()).toContain("The web UI is not built");
    expect((await serveUi("/nonexistent/ui", "/instances", "GET")).status).toBe(404);
  });
});

describe("defaultUiDir", () => {
  it("takes BATON_PROXY_UI_DIR, else apps/proxy/web/dist", () => {
    expect(defaultUiDir({ BATON_PROXY_UI_DIR: "/srv/ui" })).toBe("/srv/ui");
    expect(defaultUiDir({})).toMatch(/apps\/proxy\/web\/dist$/);
  });
});
