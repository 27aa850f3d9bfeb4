import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { DOCS_INIT_FILE, DOCS_INIT_SCRIPT } from "@baton/actions";

// The explorer's files come from the installed swagger-ui-dist package: no CDN, no network.
const ASSETS: Record<string, string> = {
  "swagger-ui.css": "text/css; charset=utf-8",
  "swagger-ui-bundle.js": "text/javascript; charset=utf-8",
  "swagger-ui-standalone-preset.js": "text/javascript; charset=utf-8",
  "favicon-32x32.png": "image/png",
};

let distDir: string | undefined;

function swaggerDir(): string {
  distDir ??= dirname(createRequire(import.meta.url).resolve("swagger-ui-dist/package.json"));
  return distDir;
}

export async function serveDocsAsset(file: string): Promise<Response> {
  if (file === DOCS_INIT_FILE)
    return new Response(DOCS_INIT_SCRIPT, {
      headers: { "content-type": "text/javascript; charset=utf-8", "cache-control": "public, max-age=3600" },
    });
  const type = ASSETS[file];
  if (!type) return new Response("not found", { status: 404 });
  const content = await readFile(join(swaggerDir(), file));
  return new Response(content, { headers: { "content-type": type, "cache-control": "public, max-age=3600" } });
}
